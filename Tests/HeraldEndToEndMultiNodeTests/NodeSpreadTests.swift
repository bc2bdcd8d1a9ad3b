import Foundation
import HeraldTestSupport
import Testing

extension EndToEnd {
    /// What the symlinked scenarios take for granted here: a world really spreads its clients over the nodes, so
    /// every scenario's messages, reads and pushes cross from one node to the other.
    @Suite("Clients spread over the nodes")
    struct NodeSpread {
        @Test("Consecutive clients land on different nodes; stopping one node drops only its clients, and messages cross nodes both ways")
        func clientsAlternate() throws {
            let world = try World()
            let alice = try world.connect("alice")  // node 0
            let bob = try world.connect("bob")      // node 1
            let c = try world.dm(alice, "bob")
            try world.send(alice, c, "across")
            try bob.waitState("bob on the other node has it") { $0.unread(c) == 1 }

            let (aliceMark, bobMark) = (alice.mark, bob.mark)
            #expect(world.server.nodes[1].stop() == 0, "SIGTERM exits 0")
            try bob.waitEvent("disconnected", after: bobMark)
            #expect(try alice.state().bool("connected") == true, "alice is on the node that still runs")
            #expect(alice.events("disconnected", after: aliceMark).isEmpty)

            try world.server.nodes[1].restart()
            try bob.waitConnected(after: bobMark, timeout: .seconds(30))
            try world.send(bob, c, "back")
            try alice.waitState("alice has bob's reply") { $0.unread(c) == 1 }
            try world.send(alice, c, "again")
            try bob.waitState("bob has both") { $0.unread(c) == 2 }
        }
    }
}
