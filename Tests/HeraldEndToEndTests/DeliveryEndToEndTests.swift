import Foundation
import HeraldTestSupport
import Testing

extension EndToEnd {
    /// Rules R1-R4 across many devices and a server restart.
    @Suite("R: delivery")
    struct Delivery {
        @Test("R1, R2: a group of 20 with bursts from several senders; every device ends with the same order and counts")
        func groupOfTwenty() throws {
            let world = try World()
            let names = (1...20).map { "user\($0)" }
            var clients: [ClientProcess] = []
            for name in names { clients.append(try world.connect(name)) }
            let group = try world.group(clients[0], title: "Twenty", Array(names.dropFirst()))
            for client in clients { try client.waitState("\(client.name) knows the group") { $0.conversationOrder.contains(group) } }
            let marks = clients.map(\.mark)
            let senders = [0, 7, 13]
            for burst in 1...10 {
                for s in senders { clients[s].send("send \(group) burst \(burst) from \(names[s])") }
            }
            let total = senders.count * 10
            var orders: [[String]] = []
            for (client, mark) in zip(clients, marks) {
                try client.waitEvent("message", after: mark, timeout: .seconds(30)) { _ in
                    client.events("message", after: mark).filter { $0.string("conversation") == group }.count >= total
                }
                let ids = client.events("message", after: mark).filter { $0.string("conversation") == group }.compactMap { $0.string("message") }
                #expect(ids.count == total, "\(client.name) saw \(ids.count) messages")
                #expect(Set(ids).count == ids.count, "\(client.name) saw a message twice")
                orders.append(ids)
            }
            for (client, order) in zip(clients, orders) { #expect(order == orders[0], "\(client.name) has another order") }
            // Counts: everyone but a sender has every message of the others unread (they sit in the list).
            for (i, client) in clients.enumerated() {
                let expected = total - (senders.contains(i) ? 10 : 0)
                try client.waitState("\(client.name) unread \(expected)") { $0.unread(group) == expected && $0.int("badge") == expected }
            }
        }

        @Test("R1a: a device that connects in the middle of a burst misses nothing and gets nothing twice")
        func connectDuringBurst() throws {
            let world = try World()
            let alice = try world.connect("alice")
            try world.createUser("bob")
            let c = try world.dm(alice, "bob")
            // Half the burst is stored before bob connects, the rest races his sync.
            for i in 1...20 { try world.send(alice, c, "early \(i)") }
            for i in 1...40 { alice.send("send \(c) racing \(i)") }
            let bob = try world.connect("bob")
            let state = try bob.waitState("all sixty unread", timeout: .seconds(20)) { $0.unread(c) == 60 }
            #expect(state.int("badge") == 60)
            // Live events after `connected` are only the ones committed after it: never one already in the snapshot.
            let live = bob.events("message").compactMap { $0.string("message") }
            #expect(Set(live).count == live.count, "a message event printed twice")
            #expect(live.count <= 40)
        }

        @Test("R3, R4: the server restarts mid-conversation; clients reconnect and resume, nothing lost, nothing twice")
        func serverRestart() throws {
            let world = try World()
            let alice = try world.connect("alice")
            let bob = try world.connect("bob")
            let c = try world.dm(alice, "bob")
            var sent: [String] = []
            for i in 1...5 { sent.append(try world.send(alice, c, "before \(i)")) }
            try bob.waitState("five") { $0.unread(c) == 5 }
            let (aliceMark, bobMark) = (alice.mark, bob.mark)
            #expect(world.server.stop() == 0, "SIGTERM exits 0")
            try bob.waitEvent("disconnected", after: bobMark)
            try alice.waitEvent("disconnected", after: aliceMark)
            #expect(try bob.state().bool("connected") == false)
            // A send while the server is away waits in the outgoing queue (client message id keeps it idempotent).
            alice.send("send \(c) while away")
            try world.server.restart()
            try alice.waitConnected(after: aliceMark, timeout: .seconds(30))
            try bob.waitConnected(after: bobMark, timeout: .seconds(30))
            for i in 1...5 { sent.append(try world.send(alice, c, "after \(i)")) }
            try bob.waitState("all eleven") { $0.unread(c) == 11 }
            let ids = bob.events("message").filter { $0.string("conversation") == c }.compactMap { $0.string("message") }
            #expect(ids.count == 11)
            #expect(Set(ids).count == 11, "a message was shown twice")
            for id in sent { #expect(ids.contains(id)) }
        }
    }
}
