import Foundation
import HeraldProtocol
@testable import HeraldServer
import HeraldTestSupport
import Testing

/// PostgreSQL restarts under load behind two real `herald-server` nodes. Sends during the outage fail
/// with `unavailable` and nothing half-stored is acknowledged; the clients retry with the same clientMessageId;
/// after the restart both nodes reconnect (store and LISTEN connection) and the node that missed notifications
/// catches its devices up from the stream.
@Suite("Multi-node: the database restarts under load", .serialized,
       .enabled(if: PostgresCluster.binariesAvailable, PostgresCluster.skipReason))
struct MultiNodeRestartTests {
    /// The numeric part of a message id (`m42` → 42): storage order.
    private func storageKey(_ id: String) -> Int { Int(id.dropFirst()) ?? -1 }

    /// The database's sessions as PostgreSQL sees them (state, what they wait for, their last statement), for a
    /// failure message: a node that stops answering may be waiting for a lock another session holds.
    private static func sessions(_ url: String) -> String {
        let rows = (try? PostgresCluster.run(
            "SELECT pid, state, coalesce(wait_event_type, '-'), left(query, 80) FROM pg_stat_activity WHERE datname = current_database()",
            database: url)) ?? []
        return rows.map { $0.map { $0 ?? "null" }.joined(separator: " | ") }.joined(separator: "; ")
    }

    @Test("R1/R3 + S: PostgreSQL restarts mid-stream; both nodes reconnect, every acknowledged message reaches the other node once, in order, and traffic flows both ways after")
    func databaseRestartUnderLoad() throws {
        // Its own cluster: restarting the shared one would cut every other PostgreSQL test running in parallel.
        let cluster = try PostgresCluster.startPrivate()
        let url = try cluster.createDatabase()
        let servers = try (0..<2).map { _ in try ServerHarness.start(["--store", url, "--push-grace-seconds", "0", "--sync-send-rate", "0"]) }
        defer { servers.forEach { $0.stop() } }
        let (a, b) = (servers[0], servers[1])
        let alice = try SyncTestClient(port: a.port, token: try ServerHarness.token("alice", store: url))
        let bob = try SyncTestClient(port: b.port, token: try ServerHarness.token("bob", store: url))
        for client in [alice, bob] { try client.request(#"{"type":"sync"}"#) }
        let c = try #require(try alice.request(#"{"type":"dm","user":"bob"}"#).conversation?.id)

        // The restart runs on its own thread while alice keeps a window of sends in flight.
        let restartDone = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var restartError: (any Error)?
        func startRestart() {
            Thread {
                do { try cluster.restart(downFor: 1) } catch { restartError = error }
                restartDone.signal()
            }.start()
        }

        let window = 8
        let afterRestart = 20
        var requestId = 1_000
        var pending: [Int: Int] = [:]  // request id → message number
        var acknowledged: [Int: String] = [:]  // message number → message id
        var next = 0
        var restarting = false
        var restarted = false
        var lastNumber = Int.max
        var unavailable = 0
        var otherErrors: [String] = []
        func submit(_ n: Int) throws {
            requestId += 1
            pending[requestId] = n
            try alice.sendRaw(#"{"id":\#(requestId),"type":"send","conversation":"\#(c)","clientMessageId":"r\#(n)","text":"\#(n)"}"#)
        }
        let started = Date()
        while pending.count > 0 || next <= lastNumber {
            while pending.count < window && next <= lastNumber && next < 5_000 {
                try submit(next)
                next += 1
                if next == 15 && !restarting {
                    restarting = true
                    startRestart()
                }
            }
            if restarting && !restarted && restartDone.wait(timeout: .now()) == .success {
                restarted = true
                lastNumber = next + afterRestart - 1
            }
            guard Date().timeIntervalSince(started) < 20 else { break }
            let response: ResponseFrame
            do { response = try alice.response(id: -1, orAnyOf: Set(pending.keys)) } catch {
                Issue.record("no response to alice's sends within 5 s (pending \(pending.values.sorted()), restarted \(restarted)): \(error)")
                break
            }
            guard let id = response.id, let n = pending.removeValue(forKey: id) else { continue }
            if response.ok, let message = response.message {
                acknowledged[n] = message.id
            } else if response.error?.code == .unavailable {
                unavailable += 1
                Thread.sleep(forTimeInterval: 0.05)
                try submit(n)  // same clientMessageId: stored at most once
            } else {
                otherErrors.append("\(n): \(String(describing: response.error))")
            }
        }
        #expect(restartError == nil, "restart failed: \(String(describing: restartError))")
        #expect(restarted, "the restart finished while the stream was running")
        #expect(unavailable > 0, "some sends met the outage and were refused, not lost")
        #expect(otherErrors.isEmpty, "only unavailable may fail: \(otherErrors)")
        #expect(pending.isEmpty, """
            every send was acknowledged within 20 s; \(pending.count) still pending (\(unavailable) answered unavailable); \
            sessions: \(Self.sessions(url)); node A's log ends: \(a.standardError.suffix(3_000)); \
            node B's log ends: \(b.standardError.suffix(1_500))
            """)
        #expect(acknowledged.count == next, "\(acknowledged.count) of \(next) acknowledged")
        #expect(Set(acknowledged.values).count == acknowledged.count, "a retried clientMessageId never stores a second message")

        // Bob on node B: every acknowledged message exactly once, in storage order, stream seqs without gaps.
        let expected = acknowledged.values.sorted { storageKey($0) < storageKey($1) }
        var received: [EventFrame] = []
        let deadline = Date().addingTimeInterval(10)
        while Set(received.compactMap(\.message?.id)).count < expected.count && Date() < deadline {
            if let event = try? bob.event(timeoutMilliseconds: 1_000, where: { $0.event == .message }) { received.append(event) }
        }
        received += bob.settle(milliseconds: 500).filter { $0.event == .message }
        #expect(received.compactMap(\.message?.id) == expected, "bob got each acknowledged message once, in order")
        let seqs = received.compactMap(\.seq)
        #expect(zip(seqs, seqs.dropFirst()).allSatisfy { $1 == $0 + 1 }, "bob's stream has no gaps or repeats: \(seqs)")

        // After the restart, new messages flow both ways: bob (node B) → alice (node A) and alice → bob.
        _ = alice.settle(milliseconds: 200)
        let fromBob = try #require(try bob.request(#"{"type":"send","conversation":"\#(c)","clientMessageId":"b1","text":"back"}"#).message?.id)
        #expect(try alice.event(timeoutMilliseconds: 5_000) { $0.event == .message && $0.message?.id == fromBob }.message?.text == "back")
        let fromAlice = try #require(try alice.request(#"{"type":"send","conversation":"\#(c)","clientMessageId":"a1","text":"again"}"#).message?.id)
        #expect(try bob.event(timeoutMilliseconds: 5_000) { $0.event == .message && $0.message?.id == fromAlice }.message?.text == "again")
        print("restart test: \(next) messages, \(unavailable) unavailable retries, \(String(format: "%.1f", Date().timeIntervalSince(started))) s")
    }
}
