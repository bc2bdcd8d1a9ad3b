import Foundation
import HeraldStore
@testable import HeraldStorePostgres
import HeraldTestSupport
import Testing

@Suite("Typing and presence across nodes (E1, E2): NOTIFY payloads, never stored")
struct EphemeralSignalTests {
    @Test("E1, E2: every signal reads back from its payload; anything else is refused")
    func payloads() {
        let signals: [EphemeralSignal] = [
            .typing(node: "a1", conversation: "c7", user: "alice", typing: true),
            .typing(node: "a1", conversation: "c7", user: "alice", typing: false),
            .presence(node: "b2", user: "bob", lastSeen: 1_763_800_000_000),
            .presence(node: "b2", user: "bob", lastSeen: nil),
            .introduced(node: "b2", conversation: "c9"),
        ]
        for signal in signals { #expect(EphemeralSignal(payload: signal.payload) == signal, "\(signal.payload)") }
        for bad in ["", "typing", "typing a1 c7 alice", "typing a1 c7 alice 2", "typing  c7 alice 1", "presence b2 bob soon",
                    "presence b2 bob", "introduced b2", "introduced b2 c9 extra", "wave a1 c7"] {
            #expect(EphemeralSignal(payload: bad) == nil, "\(bad)")
        }
    }

    @Test("E1, E2 across nodes: a published signal reaches the other node's listener, not its own, and nothing is stored",
          .enabled(if: PostgresCluster.binariesAvailable, PostgresCluster.skipReason))
    func crossesNodesUnstored() throws {
        let (url, store) = try postgresStoreWithUsers()
        try store.joinCluster(node: "a")
        let other = PostgresStreamListenerTests.Received()
        let own = PostgresStreamListenerTests.Received()
        let listenerB = PostgresStreamListener(url: url, node: "b") { other.append($0) }
        let listenerA = PostgresStreamListener(url: url, node: "a") { own.append($0) }
        listenerB.start()
        listenerA.start()
        defer {
            listenerB.stop()
            listenerA.stop()
        }
        #expect(other.wait(for: 1) == [.reconnected])
        #expect(own.wait(for: 1) == [.reconnected])
        let latest = try store.latestSeq(user: "alice")

        let typing = EphemeralSignal.typing(node: "a", conversation: "c1", user: "alice", typing: true)
        try store.publish([typing])
        // Inside a transaction the signal goes at its commit, and a rolled-back one never.
        struct Abort: Error {}
        #expect(throws: Abort.self) {
            try store.transaction {
                try store.publish([.presence(node: "a", user: "alice", lastSeen: 1)])
                throw Abort()
            }
        }
        let presence = EphemeralSignal.presence(node: "a", user: "alice", lastSeen: nil)
        try store.transaction { try store.publish([presence]) }
        #expect(other.wait(for: 3) == [.reconnected, .ephemeral(typing), .ephemeral(presence)])
        // Node a hears node b's signal, sent after its own: so it skipped its own (NOTIFYs arrive in order).
        let fromB = EphemeralSignal.introduced(node: "b", conversation: "c2")
        try store.publish([fromB])
        #expect(own.wait(for: 2) == [.reconnected, .ephemeral(fromB)], "a node skips its own signals")
        // A batch is one statement: many signals, split over notifications under PostgreSQL's payload limit, heard in order.
        let batch = (0..<400).map { EphemeralSignal.typing(node: "a", conversation: "c\($0)", user: "alice", typing: $0 % 2 == 0) }
        #expect(PostgresStore.ephemeralPayloads(batch).count > 1)
        #expect(PostgresStore.ephemeralPayloads(batch).allSatisfy { $0.utf8.count < 8_000 })
        try store.publish(batch)
        #expect(other.wait(for: 3 + 400) == [.reconnected, .ephemeral(typing), .ephemeral(presence)] + batch.map { .ephemeral($0) })
        #expect(try store.latestSeq(user: "alice") == latest, "no stream event")
        let wakeUps = try store.connection.scalar("SELECT count(*) FROM stream_wakeups")
        #expect(wakeUps == 0, "no wake-up row either")
    }
}
