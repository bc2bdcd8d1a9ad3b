import Foundation
@testable import HeraldStore
import Testing

@Suite("SQLite: event fan-out, one body per event, heads in memory (R3)")
struct SQLiteEventBatchTests {
    @Test("R3: a batch append gives each user the next seq of their own stream, and every user reads the same body")
    func batch() throws {
        let (_, store) = try sqliteStoreWithUsers()
        _ = try store.appendEvent(user: "bob", payload: [0], now: 1)
        let body = Array(#"{"event":"message"}"#.utf8)
        #expect(try store.appendEvent(users: ["alice", "bob", "carol"], payload: body, now: 5) == [1, 2, 1])
        #expect(try store.appendEvent(users: ["alice", "alice"], payload: [7], now: 6) == [2, 3])
        #expect(try store.appendEvent(users: [], payload: [7], now: 6) == [])
        #expect(try store.events(user: "bob", after: 1, limit: 10) == [StoredEvent(seq: 2, payload: body, createdAt: 5)])
        #expect(try store.events(user: "alice", after: 0, limit: 10).map(\.seq) == [1, 2, 3])
        #expect(try store.latestSeq(user: "alice") == 3)
        // One body row for the three-user event: it is stored once.
        #expect(try store.connection.scalar("SELECT count(*) FROM event_bodies WHERE payload = ?", .blob(body)) == 1)
    }

    @Test("R3: heads survive a reopen, and rolled-back appends hand their seqs out again (no gaps)")
    func rollbacks() throws {
        let (database, store) = try sqliteStoreWithUsers()
        struct Refused: Error {}
        try store.transaction {
            _ = try store.appendEvent(users: ["alice", "bob"], payload: [1], now: 1)
            // A nested failure undoes only its own appends.
            do {
                try store.transaction {
                    _ = try store.appendEvent(users: ["alice", "carol"], payload: [2], now: 2)
                    throw Refused()
                }
            } catch is Refused {}
            #expect(try store.latestSeq(user: "alice") == 1)
            #expect(try store.latestSeq(user: "carol") == 0)
            _ = try store.appendEvent(user: "alice", payload: [3], now: 3)
        }
        // A whole transaction that fails leaves nothing behind, in memory or on disk.
        #expect(throws: Refused.self) {
            try store.transaction {
                _ = try store.appendEvent(users: ["alice", "bob", "carol"], payload: [4], now: 4)
                throw Refused()
            }
        }
        #expect(try store.latestSeq(user: "alice") == 2)
        #expect(try store.appendEvent(user: "carol", payload: [5], now: 5) == 1)
        store.close()
        let reopened = try database.open()
        #expect(try reopened.latestSeq(user: "alice") == 2)
        #expect(try reopened.latestSeq(user: "bob") == 1)
        #expect(try reopened.latestSeq(user: "carol") == 1)
        #expect(try reopened.events(user: "alice", after: 0, limit: 10).map(\.payload) == [[1], [3]])
        #expect(try reopened.appendEvent(user: "alice", payload: [6], now: 6) == 3)
    }

    @Test("R3: pruning deletes old bodies once no stream row refers to them, and keeps shared bodies still in use")
    func pruneBodies() throws {
        let (_, store) = try sqliteStoreWithUsers()
        _ = try store.appendEvent(users: ["alice", "bob"], payload: [1], now: 1_000)
        for index in 0..<5 { _ = try store.appendEvent(user: "alice", payload: [UInt8(10 + index)], now: 2_000 + Int64(index)) }
        // Everything is old; alice keeps her newest 2, bob keeps his only event: the shared body must stay for bob.
        #expect(try store.pruneEvents(olderThan: 10_000, keepAtLeast: 1) == 5)
        #expect(try store.events(user: "bob", after: 0, limit: 10).map(\.payload) == [[1]])
        #expect(try store.events(user: "alice", after: 0, limit: 10).map(\.seq) == [6])
        #expect(try store.connection.scalar("SELECT count(*) FROM event_bodies") == 2)
        #expect(try store.pruneEvents(olderThan: 10_000, keepAtLeast: 0) == 2)
        #expect(try store.connection.scalar("SELECT count(*) FROM event_bodies") == 0)
        #expect(try store.oldestRetainedSeq(user: "alice") == 7)
        #expect(try store.appendEvent(user: "alice", payload: [9], now: 11_000) == 7)
    }

    @Test("Migration 3 moves a version-2 database's stream rows into bodies + rows, seqs and payloads unchanged")
    func migration() throws {
        let database = try TemporaryDatabase()
        do {
            // A database as schema version 2 left it, with stream rows that carry their payloads.
            let old = try SQLiteConnection(path: database.path, readOnly: false, busyTimeoutMilliseconds: 1_000)
            try old.executeScript(Schema.migrations[0])
            try old.executeScript(Schema.migrations[1])
            try old.executeScript("PRAGMA user_version = 2")
            try old.executeScript(
                """
                INSERT INTO users (id, name) VALUES ('alice', 'Alice'), ('bob', 'Bob');
                INSERT INTO event_heads (user_id, last_seq) VALUES ('alice', 7), ('bob', 2);
                INSERT INTO events (user_id, seq, created_at, payload) VALUES
                    ('alice', 6, 100, x'61'), ('alice', 7, 200, x'62'), ('bob', 1, 50, x'63'), ('bob', 2, 300, x'');
                """)
            old.close()
        }
        let store = try database.open()
        #expect(try store.events(user: "alice", after: 0, limit: 10)
            == [StoredEvent(seq: 6, payload: [0x61], createdAt: 100), StoredEvent(seq: 7, payload: [0x62], createdAt: 200)])
        #expect(try store.events(user: "bob", after: 0, limit: 10)
            == [StoredEvent(seq: 1, payload: [0x63], createdAt: 50), StoredEvent(seq: 2, payload: [], createdAt: 300)])
        #expect(try store.oldestRetainedSeq(user: "alice") == 6)
        #expect(try store.replay(user: "alice", after: 4, limit: 10) == .resync)
        #expect(try store.appendEvent(users: ["alice", "bob"], payload: [1], now: 400) == [8, 3])
        #expect(try store.pruneEvents(olderThan: 250, keepAtLeast: 0) == 3)
        #expect(try store.events(user: "bob", after: 0, limit: 10).map(\.seq) == [2, 3])
    }
}
