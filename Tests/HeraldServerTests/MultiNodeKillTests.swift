import Foundation
import Glibc
import HeraldProtocol
@testable import HeraldServer
import HeraldStorePostgres
import HeraldTestSupport
import Testing

/// A node SIGKILLed while messages flow through both nodes: what it acknowledged is kept, its devices resume on the
/// other node without loss or duplicates (R3, R4), and within the documented bound no push is routed to it any more.
@Suite("Multi-node: a node killed under load", .serialized,
       .enabled(if: PostgresCluster.binariesAvailable, PostgresCluster.skipReason))
struct MultiNodeKillTests {
    private func storageKey(_ id: String) -> Int { Int(id.dropFirst()) ?? -1 }

    @Test("R3, R4, P1: node B is killed while alice (A) and dave (B) send pipelined; every acknowledged message reaches bob once, in order, after he resumes on A; dave's retries on A store nothing twice; after 2.5 s no push is routed to B")
    func nodeKilledUnderLoad() throws {
        let (url, servers) = try startNodes(2)
        defer { servers.forEach { $0.stop() } }
        let (a, b) = (servers[0], servers[1])
        let tokens = try ["alice", "bob", "dave"].map { try ServerHarness.token($0, store: url) }
        let alice = try SyncTestClient(port: a.port, token: tokens[0], device: "alice-laptop")
        let dave = try SyncTestClient(port: b.port, token: tokens[2], device: "dave-laptop")
        var bob = try SyncTestClient(port: b.port, token: tokens[1], device: "bob-laptop")
        var phone = try SyncTestClient(port: b.port, token: tokens[1], device: "bob-phone")
        for client in [alice, dave, bob, phone] { try client.request(#"{"type":"sync"}"#) }
        for client in [alice, dave, bob] { try client.request(#"{"type":"scene","scene":"list"}"#) }
        try phone.request(#"{"type":"scene","scene":"background"}"#)
        let group = try #require(try alice.request(#"{"type":"group","title":"ops","members":["bob","dave"]}"#).conversation?.id)
        let nodeB = try #require(try PostgresCluster.run("SELECT node_id FROM device_presence WHERE device = 'bob-phone'", database: url).first?.first ?? nil)

        // Both senders keep a window of sends in flight; B dies in the middle of it.
        var acknowledged: [String: String] = [:]  // client message id → message id
        var daveUnanswered: [String] = []
        var next = 0
        func pipeline(_ client: SyncTestClient, _ prefix: String, count: Int) throws -> [Int: String] {
            var pending: [Int: String] = [:]
            for _ in 0..<count {
                let key = "\(prefix)\(next)"
                next += 1
                let id = 10_000 + next
                try client.sendRaw(#"{"id":\#(id),"type":"send","conversation":"\#(group)","clientMessageId":"\#(key)","text":"\#(key)"}"#)
                pending[id] = key
            }
            return pending
        }
        func collect(_ client: SyncTestClient, _ pending: inout [Int: String]) {
            while !pending.isEmpty, let response = try? client.response(id: -1, orAnyOf: Set(pending.keys)) {
                guard let id = response.id, let key = pending.removeValue(forKey: id), let message = response.message else { continue }
                acknowledged[key] = message.id
            }
        }
        for _ in 0..<3 {
            var fromAlice = try pipeline(alice, "a", count: 8)
            var fromDave = try pipeline(dave, "d", count: 8)
            collect(alice, &fromAlice)
            collect(dave, &fromDave)
        }
        let seenBefore = bob.settle(milliseconds: 300)
        let lastSeq = try #require(seenBefore.compactMap(\.seq).max())
        var fromAlice = try pipeline(alice, "a", count: 8)
        let fromDave = try pipeline(dave, "d", count: 8)
        b.send(signal: SIGKILL)
        #expect(b.waitForExit(timeoutMilliseconds: 5_000) != nil)
        collect(alice, &fromAlice)
        var daveLeft = fromDave
        collect(dave, &daveLeft)  // answered before the kill, or never
        daveUnanswered = Array(daveLeft.values)
        [dave, bob, phone].forEach { $0.close() }

        // Dave retries what B never answered on A, with the same client message ids (R4).
        let daveOnA = try SyncTestClient(port: a.port, token: tokens[2], device: "dave-laptop")
        try daveOnA.request(#"{"type":"sync"}"#)
        for key in daveUnanswered {
            let response = try daveOnA.request(#"{"type":"send","conversation":"\#(group)","clientMessageId":"\#(key)","text":"\#(key)"}"#)
            acknowledged[key] = try #require(response.message?.id)
        }
        // Bob resumes on A from the last seq his laptop saw on B.
        bob = try SyncTestClient(port: a.port, token: tokens[1], device: "bob-laptop")
        #expect(try bob.request(#"{"type":"sync","after":\#(lastSeq)}"#).mode == .resume)
        var more = try pipeline(alice, "a", count: 8)
        collect(alice, &more)

        let expected = Set(acknowledged.values)
        let history = try #require(try bob.request(#"{"type":"history","conversation":"\#(group)","limit":200}"#).messages).map(\.id)
        #expect(Set(history) == expected, "every acknowledged message is stored, once (R4): \(history.count) stored, \(expected.count) acknowledged")
        let before = seenBefore.filter { $0.event == .message }.compactMap(\.message?.id)
        var resumed: [String] = []
        let deadline = Date().addingTimeInterval(10)
        while before.count + resumed.count < history.count && Date() < deadline {
            if let event = try? bob.event(timeoutMilliseconds: 1_000, where: { $0.event == .message }), let id = event.message?.id { resumed.append(id) }
        }
        resumed += bob.settle(milliseconds: 500).filter { $0.event == .message }.compactMap(\.message?.id)
        #expect(before + resumed == history.sorted { storageKey($0) < storageKey($1) },
                "what bob saw on B, then on A: every stored message once, in storage order")

        // B is gone: within the documented bound (its LISTEN session ended with it; heartbeat 2.5 s late) nobody routes
        // a push to its devices; bob's phone, back on A in the background, gets its push from A, once.
        Thread.sleep(forTimeInterval: Double(PostgresStore.listenerGoneGraceMilliseconds) / 1000 + 0.5)
        phone = try SyncTestClient(port: a.port, token: tokens[1], device: "bob-phone")
        try phone.request(#"{"type":"sync"}"#)
        try phone.request(#"{"type":"scene","scene":"background"}"#)
        let lastWakeUp = try PostgresCluster.run("SELECT coalesce(max(id), 0) FROM stream_wakeups", database: url).first?.first ?? nil
        let m = try #require(try alice.request(#"{"type":"send","conversation":"\#(group)","clientMessageId":"late","text":"late"}"#).message?.id)
        #expect(try phone.event(timeoutMilliseconds: 5_000) { $0.event == .push }.push?.message == m)
        #expect(phone.settle(milliseconds: 300).allSatisfy { $0.event != .push }, "one push")
        let routedToB = try PostgresCluster.run(
            "SELECT count(*) FROM stream_wakeups w, unnest(w.signals) s WHERE w.id > \(lastWakeUp ?? "0") AND s LIKE 'push \(nodeB) %'", database: url)
        #expect(routedToB == [["0"]], "no push routed to the dead node")
    }
}
