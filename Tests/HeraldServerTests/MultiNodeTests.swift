import Foundation
import Glibc
import HeraldProtocol
@testable import HeraldServer
import HeraldTestSupport
import Testing

/// Several real `herald-server` binaries (ServerHarness) on one throwaway PostgreSQL database: a user's
/// devices on different nodes see exactly what they would see on one node.
@Suite("Multi-node: several herald-server nodes on one PostgreSQL store", .serialized,
       .enabled(if: PostgresCluster.binariesAvailable, PostgresCluster.skipReason))
struct MultiNodeTests {
    /// Starts `count` nodes on a fresh database and returns them with its URL.
    private func nodes(_ count: Int) throws -> (url: String, nodes: [ServerHarness]) {
        try startNodes(count, ["--push-grace-seconds", "0"])
    }

    /// Message events received until `count` arrived (or a timeout), then anything else within a short settle.
    private func messageEvents(_ client: SyncTestClient, count: Int) throws -> [EventFrame] {
        var got: [EventFrame] = []
        while got.count < count { got.append(try client.event(timeoutMilliseconds: 5_000) { $0.event == .message }) }
        got += client.settle(milliseconds: 300).filter { $0.event == .message }
        return got
    }

    @Test("R1/R2: messages sent on node A reach the user's device on node B once each and in order, and the sender's other node")
    func crossNodeDelivery() throws {
        let (url, servers) = try nodes(2)
        defer { servers.forEach { $0.stop() } }
        let (a, b) = (servers[0], servers[1])
        let aliceToken = try ServerHarness.token("alice", store: url)
        let bobToken = try ServerHarness.token("bob", store: url)
        let aliceOnA = try SyncTestClient(port: a.port, token: aliceToken, device: "phone")
        let aliceOnB = try SyncTestClient(port: b.port, token: aliceToken, device: "laptop")
        let bobOnA = try SyncTestClient(port: a.port, token: bobToken)
        let bobOnB = try SyncTestClient(port: b.port, token: bobToken)
        for client in [aliceOnA, aliceOnB, bobOnA, bobOnB] { try client.request(#"{"type":"sync"}"#) }
        let c = try #require(try bobOnA.request(#"{"type":"dm","user":"alice"}"#).conversation?.id)

        // Bob writes from both nodes, interleaved and pipelined: storage order decides the order everywhere (R2).
        var sent: [String] = []
        for n in 0..<20 {
            let client = n.isMultiple(of: 2) ? bobOnA : bobOnB
            let response = try client.request(#"{"type":"send","conversation":"\#(c)","clientMessageId":"k\#(n)","text":"\#(n)"}"#)
            sent.append(try #require(response.message?.id))
        }
        let storageOrder = sent.sorted { Int($0.dropFirst())! < Int($1.dropFirst())! }
        for client in [aliceOnA, aliceOnB] {
            let events = try messageEvents(client, count: 20)
            #expect(events.compactMap(\.message?.id) == storageOrder, "each message exactly once, in storage order")
            let seqs = events.compactMap(\.seq)
            #expect(zip(seqs, seqs.dropFirst()).allSatisfy { $1 == $0 + 1 }, "stream sequence without gaps or repeats: \(seqs)")
        }
        // Each of bob's devices also sees its own and the other node's sends in the same order.
        #expect(try messageEvents(bobOnB, count: 20).compactMap(\.message?.id) == storageOrder)
    }

    @Test("U4/U5: reading on one node clears the badge on the user's device on the other node")
    func crossNodeRead() throws {
        let (url, servers) = try nodes(2)
        defer { servers.forEach { $0.stop() } }
        let aliceToken = try ServerHarness.token("alice", store: url)
        let bob = try SyncTestClient(port: servers[0].port, token: try ServerHarness.token("bob", store: url))
        let aliceOnA = try SyncTestClient(port: servers[0].port, token: aliceToken, device: "phone")
        let aliceOnB = try SyncTestClient(port: servers[1].port, token: aliceToken, device: "laptop")
        for client in [bob, aliceOnA, aliceOnB] { try client.request(#"{"type":"sync"}"#) }
        let c = try #require(try bob.request(#"{"type":"dm","user":"alice"}"#).conversation?.id)
        var ids: [String] = []
        for n in 0..<3 {
            ids.append(try #require(try bob.request(#"{"type":"send","conversation":"\#(c)","clientMessageId":"r\#(n)","text":"hi"}"#).message?.id))
        }
        _ = try messageEvents(aliceOnB, count: 3)
        #expect(try aliceOnB.request(#"{"type":"conversations"}"#).badge == 3)

        let ack = try aliceOnA.request(#"{"type":"ack","messages":[\#(ids.map { "\"\($0)\"" }.joined(separator: ","))]}"#)
        #expect(ack.badge == 0)
        let read = try aliceOnB.event(timeoutMilliseconds: 5_000) { $0.event == .read }
        #expect(read.messages == ids)
        #expect(read.badge == 0)
        #expect(read.unread == [c: 0])
        #expect(try aliceOnB.request(#"{"type":"conversations"}"#).badge == 0)
        // U6: bob's receipts, committed on node A, reach him on node A once each.
        let receipts = try (0..<3).map { _ in try bob.event(timeoutMilliseconds: 5_000) { $0.event == .receipt }.messageId }
        #expect(receipts == ids)
        #expect(bob.settle(milliseconds: 300).filter { $0.event == .receipt }.isEmpty)
    }

    @Test("R3: a node is killed; its client resumes on another node from its last seq without loss or duplicates")
    func nodeDies() throws {
        let (url, servers) = try nodes(2)
        defer { servers.forEach { $0.stop() } }
        let (a, b) = (servers[0], servers[1])
        let aliceToken = try ServerHarness.token("alice", store: url)
        let bob = try SyncTestClient(port: a.port, token: try ServerHarness.token("bob", store: url))
        try bob.request(#"{"type":"sync"}"#)
        let aliceOnB = try SyncTestClient(port: b.port, token: aliceToken)
        try aliceOnB.request(#"{"type":"sync"}"#)
        let c = try #require(try bob.request(#"{"type":"dm","user":"alice"}"#).conversation?.id)
        var sent: [String] = []
        func send(_ n: Int) throws {
            sent.append(try #require(try bob.request(#"{"type":"send","conversation":"\#(c)","clientMessageId":"d\#(n)","text":"\#(n)"}"#).message?.id))
        }
        for n in 0..<5 { try send(n) }
        let before = try messageEvents(aliceOnB, count: 5)
        let lastSeq = try #require(before.last?.seq)

        b.send(signal: SIGKILL)
        #expect(b.waitForExit(timeoutMilliseconds: 5_000) != nil)
        aliceOnB.close()
        for n in 5..<12 { try send(n) }  // while alice has no connection

        let aliceOnA = try SyncTestClient(port: a.port, token: aliceToken)
        let resumed = try aliceOnA.request(#"{"type":"sync","after":\#(lastSeq)}"#)
        #expect(resumed.mode == .resume)
        for n in 12..<15 { try send(n) }  // live again
        let after = try messageEvents(aliceOnA, count: 10)
        #expect((before + after).compactMap(\.message?.id) == sent, "every message once, in order, across the node's death")
        let seqs = after.compactMap(\.seq)
        #expect(seqs.first == lastSeq + 1)
        #expect(zip(seqs, seqs.dropFirst()).allSatisfy { $1 == $0 + 1 })
    }
}
