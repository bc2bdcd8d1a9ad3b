import Foundation
import HeraldStore
@testable import HeraldStorePostgres
import HeraldTestSupport
import Testing

@Suite("PostgreSQL: stream notifications for cross-node fan-out", .enabled(if: PostgresCluster.binariesAvailable, PostgresCluster.skipReason))
struct PostgresStreamListenerTests {
    /// Signals received so far, from the listener thread.
    final class Received: @unchecked Sendable {
        // @unchecked: guarded by `condition`.
        private let condition = NSCondition()
        private var signals: [PostgresStreamListener.Signal] = []

        func append(_ signal: PostgresStreamListener.Signal) {
            condition.lock()
            signals.append(signal)
            condition.broadcast()
            condition.unlock()
        }

        /// Waits until `count` signals arrived (or 5 s passed) and returns them all.
        func wait(for count: Int) -> [PostgresStreamListener.Signal] {
            condition.lock()
            defer { condition.unlock() }
            let deadline = Date().addingTimeInterval(5)
            while signals.count < count, condition.wait(until: deadline) {}
            return signals
        }
    }

    /// A listener on `url` that has connected once (its first signal, `.reconnected`, is already received).
    private func startedListener(url: String, node: String?) throws -> (PostgresStreamListener, Received) {
        let received = Received()
        let listener = PostgresStreamListener(url: url, node: node) { received.append($0) }
        listener.start()
        let connected = received.wait(for: 1) == [.reconnected]
        if !connected { listener.stop() }
        try #require(connected, "the listener did not report its first connection")
        return (listener, received)
    }

    @Test("One wake-up per committed transaction carries its runs and bodies; a rolled-back one never; reconnects are reported")
    func notifications() throws {
        struct Abort: Error {}
        let (url, store) = try postgresStoreWithUsers()
        let (listener, received) = try startedListener(url: url, node: nil)
        defer { listener.stop() }

        _ = try store.appendEvent(user: "alice", payload: [1], now: 1)
        #expect(throws: Abort.self) {
            try store.transaction {
                _ = try store.appendEvent(user: "bob", payload: [1], now: 1)
                throw Abort()
            }
        }
        try store.transaction {
            _ = try store.appendEvent(users: ["bob", "a user with spaces"], payload: [2], now: 2)
            _ = try store.appendEvent(user: "bob", payload: [3], now: 2)
        }
        #expect(received.wait(for: 3) == [
            .reconnected,
            .streams(StreamRuns(runs: [.init(user: "alice", firstSeq: 1, firstBody: 0, count: 1)], bodies: [[1]])),
            .streams(StreamRuns(
                runs: [.init(user: "bob", firstSeq: 1, firstBody: 0, count: 2), .init(user: "a user with spaces", firstSeq: 1, firstBody: 0, count: 1)],
                bodies: [[2], [3]])),
        ])

        // The database drops the LISTEN session: the listener reconnects and says so (the node then catches up).
        try PostgresCluster.shared().terminateSessions(database: url)
        #expect(received.wait(for: 4).last == .reconnected)
        _ = try? store.latestSeq(user: "alice")
        _ = try store.appendEvent(user: "alice", payload: [4], now: 3)
        #expect(received.wait(for: 5).last == .streams(StreamRuns(runs: [.init(user: "alice", firstSeq: 2, firstBody: 0, count: 1)], bodies: [[4]])))
    }

    @Test("P1/P5 across nodes: push requests, withdrawals and stream runs committed while the LISTEN connection was cut arrive once it is back, once each")
    func catchUpAfterCut() throws {
        let (url, store) = try postgresStoreWithUsers()
        let (listener, received) = try startedListener(url: url, node: "b")
        defer { listener.stop() }
        try store.joinCluster(node: "a")
        // Node b's push to bob's device 3, which a read on node a withdraws while b is not listening.
        let nodeB = try PostgresStore(url: url)
        try nodeB.joinCluster(node: "b")
        let (direct, _) = try store.findOrCreateDirect(between: "alice", and: "bob", now: 1)
        let (message, _) = try store.insertMessage(
            conversation: direct.id, sender: "alice", clientMessageId: "k1", kind: .text, text: "hi", imageURL: nil, now: 1)
        _ = try nodeB.enqueuePush(
            user: "bob", device: "phone", deviceKey: 3, conversation: direct.id, message: message.id, sender: "alice", preview: "hi", url: "u", now: 1)
        try PostgresCluster.shared().cutSessions(named: PostgresStreamListener.applicationName, database: url) {
            try store.transaction {
                _ = try store.appendEvent(user: "bob", payload: [7], now: 1)
                try store.requestPush(node: "b", deviceKey: 3, message: "m9")
            }
            #expect(try store.withdrawPushes(message: message.id, user: "bob", now: 2).count == 1)
            try store.signOut(user: "carol", device: nil, issuedBefore: 5)
            Thread.sleep(forTimeInterval: 0.3)  // the listener keeps failing to reconnect meanwhile
        }
        let signals = received.wait(for: 6)
        #expect(signals == [
            .reconnected, .reconnected,
            .streams(StreamRuns(runs: [.init(user: "bob", firstSeq: 1, firstBody: 0, count: 1)], bodies: [[7]])),
            .push(node: "b", deviceKey: 3, message: "m9"),
            .pushCleared(node: "b", deviceKey: 3, conversation: direct.id, message: message.id),
            .signedOut(user: "carol", device: nil),
        ])
        // A wake-up of this node's own commits is skipped: it delivered them itself.
        _ = try nodeB.appendEvent(user: "alice", payload: [8], now: 2)
        _ = try store.appendEvent(user: "alice", payload: [9], now: 2)
        #expect(received.wait(for: 7).last == .streams(StreamRuns(runs: [.init(user: "alice", firstSeq: 2, firstBody: 0, count: 1)], bodies: [[9]])))
        #expect(received.wait(for: 7).count == 7)
    }

    @Test("R2/R3 across nodes: a burst of commits (wake-ups queue up and are read together) arrives in commit order, each once")
    func burstInCommitOrder() throws {
        let (url, store) = try postgresStoreWithUsers()
        let (listener, received) = try startedListener(url: url, node: "b")
        defer { listener.stop() }
        let burst = 150
        for index in 1...burst { _ = try store.appendEvent(user: "alice", payload: [UInt8(index % 256)], now: Int64(index)) }
        let signals = received.wait(for: 1 + burst).dropFirst()
        let runs = signals.compactMap { signal -> StreamRuns.Run? in
            if case .streams(let batch) = signal { return batch.runs.first }
            return nil
        }
        #expect(signals.count == burst)
        #expect(runs.map(\.firstSeq) == (1...Int64(burst)).map { $0 })
        // Nothing more comes later (no wake-up reported twice).
        Thread.sleep(forTimeInterval: 0.3)
        #expect(received.wait(for: 0).count == 1 + burst)
    }

    @Test("Malformed wake-ups and signals are ignored")
    func parse() {
        #expect(PostgresStreamListener.parseWakeUp("12 node-a")! == (12, "node-a"))
        for bad in ["", "12", "x a", "0 a", "-1 a", " a"] {
            #expect(PostgresStreamListener.parseWakeUp(bad) == nil, "\(bad)")
        }
        #expect(PostgresStreamListener.parseSignal("push b 3 9") == .push(node: "b", deviceKey: 3, message: "m9"))
        #expect(PostgresStreamListener.parseSignal("bell b 3 4") == .bellPush(node: "b", deviceKey: 3, notification: "n4"))
        for bad in ["", "push", "push b 3", "push b x 9", "push b 3 0", "clear b 3 1", "signout  x", "hello b 3 9", "bell b 3 0", "bell b 3"] {
            #expect(PostgresStreamListener.parseSignal(bad) == nil, "\(bad)")
        }
    }
}
