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

    @Test("A committed append notifies \"user advanced to seq\" once; a rolled-back one never; reconnects are reported")
    func notifications() throws {
        struct Abort: Error {}
        let (url, store) = try postgresStoreWithUsers()
        let received = Received()
        let listener = PostgresStreamListener(url: url) { received.append($0) }
        listener.start()
        defer { listener.stop() }
        #expect(received.wait(for: 1) == [.reconnected])

        _ = try store.appendEvent(user: "alice", payload: [1], now: 1)
        #expect(throws: Abort.self) {
            try store.transaction {
                _ = try store.appendEvent(user: "bob", payload: [1], now: 1)
                throw Abort()
            }
        }
        try store.transaction {
            _ = try store.appendEvent(user: "bob", payload: [2], now: 2)
            _ = try store.appendEvent(user: "a user with spaces", payload: [3], now: 2)
        }
        #expect(received.wait(for: 4) == [
            .reconnected, .advanced(user: "alice", seq: 1), .advanced(user: "bob", seq: 1), .advanced(user: "a user with spaces", seq: 1),
        ])

        // The database drops the LISTEN session: the listener reconnects and says so (the node then catches up).
        try PostgresCluster.shared().terminateSessions(database: url)
        #expect(received.wait(for: 5).last == .reconnected)
        _ = try? store.latestSeq(user: "alice")
        _ = try store.appendEvent(user: "alice", payload: [4], now: 3)
        #expect(received.wait(for: 6).last == .advanced(user: "alice", seq: 2))
    }

    @Test("Malformed payloads are ignored")
    func parse() {
        #expect(PostgresStreamListener.parse("12 alice") == .advanced(user: "alice", seq: 12))
        for bad in ["", "12", "12 ", "x alice", "0 alice", "-1 alice", " alice"] {
            #expect(PostgresStreamListener.parse(bad) == nil, "\(bad)")
        }
    }
}
