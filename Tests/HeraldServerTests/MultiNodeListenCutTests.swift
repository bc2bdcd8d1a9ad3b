import Foundation
import HeraldProtocol
@testable import HeraldServer
import HeraldStorePostgres
import HeraldTestSupport
import Testing

/// A node's LISTEN connection is cut for a while under load and comes back: what other nodes committed meanwhile
/// (stream events, push requests, withdrawals) reaches its devices once it is back, each exactly once.
@Suite("Multi-node: a node's LISTEN connection cut under load", .serialized,
       .enabled(if: PostgresCluster.binariesAvailable, PostgresCluster.skipReason))
struct MultiNodeListenCutTests {

    @Test("R1, R3, P1, P5: node B's LISTEN session is cut while alice sends on A; bob's laptop on B gets every message once in order, his background phone one push per message, and the pushes read on A meanwhile are withdrawn on B once")
    func listenCutUnderLoad() throws {
        let (url, servers) = try startNodes(2)
        defer { servers.forEach { $0.stop() } }
        let (a, b) = (servers[0], servers[1])
        let aliceToken = try ServerHarness.token("alice", store: url)
        let bobToken = try ServerHarness.token("bob", store: url)
        let alice = try SyncTestClient.synced(port: a.port, token: aliceToken, device: "alice-laptop", scene: #""scene":"list""#)
        let c = try #require(try alice.request(#"{"type":"dm","user":"bob"}"#).conversation?.id)
        let laptop = try SyncTestClient.synced(port: b.port, token: bobToken, device: "laptop", scene: #""scene":"list""#)
        let phone = try SyncTestClient.synced(port: b.port, token: bobToken, device: "phone", scene: #""scene":"background""#)
        let tablet = try SyncTestClient.synced(port: a.port, token: bobToken, device: "tablet", scene: #""scene":"list""#)

        var sent: [String] = []
        func send(_ n: Int) throws {
            sent.append(try #require(try alice.request(#"{"type":"send","conversation":"\#(c)","clientMessageId":"k\#(n)","text":"\#(n)"}"#).message?.id))
        }
        for n in 0..<10 { try send(n) }
        // Every push of the first ten reached the phone before the cut, so their withdrawals have somewhere to go.
        var pushes: [String] = []
        while pushes.count < 10 {
            guard let event = try? phone.event(timeoutMilliseconds: 5_000, where: { $0.event == .push }), let m = event.push?.message else {
                Issue.record("only \(pushes.count) of 10 pushes before the cut: \(phone.log.suffix(5))")
                return
            }
            pushes.append(m)
        }

        try PostgresCluster.shared().cutSessions(named: PostgresStreamListener.applicationName, database: url) {
            for n in 10..<40 { try send(n) }
            // Bob reads the first ten on his tablet (node A): their pushes on B are withdrawn while B is not listening.
            let ids = sent.prefix(10).map { "\"\($0)\"" }.joined(separator: ",")
            #expect(try tablet.request(#"{"type":"ack","messages":[\#(ids)]}"#).read?.count == 10)
            Thread.sleep(forTimeInterval: 0.5)
        }
        for n in 40..<50 { try send(n) }

        // Messages: each once, in storage order, seqs without gaps, on the node that was cut off.
        // (Bob's stream also carries the read events of his tablet's ack: every stream event counts for the seqs.)
        var stream: [EventFrame] = []
        while stream.filter({ $0.event == .message }).count < 50 {
            stream.append(try laptop.event(timeoutMilliseconds: 10_000) { $0.seq != nil })
        }
        #expect(stream.filter { $0.event == .message }.compactMap(\.message?.id) == sent)
        let seqs = stream.compactMap(\.seq)
        #expect(zip(seqs, seqs.dropFirst()).allSatisfy { $1 == $0 + 1 }, "no gaps, no repeats: \(seqs)")

        // Pushes: one per message for the background phone, whichever way it came; withdrawals once per read message.
        var cleared: [String] = []
        let deadline = Date().addingTimeInterval(10)
        while (pushes.count < 50 || cleared.count < 10) && Date() < deadline {
            guard let event = try? phone.event(timeoutMilliseconds: 1_000, where: { $0.event == .push || $0.event == .pushCleared }) else { continue }
            if event.event == .push, let m = event.push?.message { pushes.append(m) }
            if event.event == .pushCleared, let m = event.messageId { cleared.append(m) }
        }
        for event in phone.settle(milliseconds: 500) {
            if event.event == .push, let m = event.push?.message { pushes.append(m) }
            if event.event == .pushCleared, let m = event.messageId { cleared.append(m) }
        }
        #expect(pushes.sorted() == sent.sorted(), "one push per message, none twice: \(pushes.count) pushes for \(sent.count)")
        #expect(cleared.sorted() == Array(sent.prefix(10)).sorted(), "each read message's push withdrawn once: \(cleared)")
        #expect(laptop.settle(milliseconds: 300).allSatisfy { $0.event != .message }, "nothing delivered twice")
    }
}
