import Foundation
@testable import HeraldStore
import PropertyBased
import Testing

@Suite("SQLite: streams as runs, unread as counters (migration 4)")
struct SQLiteStreamRunTests {
    @Test("R3: a batch of 32 group events in one transaction writes one run row per member, and every seq reads back")
    func batchWritesOneRowPerMember() throws {
        let (_, store) = try sqliteStoreWithUsers()
        let members = ["alice", "bob", "carol"]
        try store.transaction {
            for index in 0..<32 { _ = try store.appendEvent(users: members, payload: [UInt8(index)], now: 1) }
        }
        #expect(try store.connection.scalar("SELECT count(*) FROM stream_runs") == 3)
        // The next transaction extends the same runs.
        try store.transaction {
            for index in 32..<40 { _ = try store.appendEvent(users: members, payload: [UInt8(index)], now: 2) }
        }
        #expect(try store.connection.scalar("SELECT count(*) FROM stream_runs") == 3)
        for user in members {
            let events = try store.events(user: user, after: 0, limit: 100)
            #expect(events.map(\.seq) == Array(1...40))
            #expect(events.map(\.payload) == (0..<40).map { [UInt8($0)] })
        }
        #expect(try store.events(user: "bob", after: 17, limit: 3).map(\.seq) == [18, 19, 20])
        // An event for one user only breaks that user's run; the others' runs go on.
        _ = try store.appendEvent(user: "alice", payload: [99], now: 3)
        _ = try store.appendEvent(users: members, payload: [100], now: 3)
        #expect(try store.connection.scalar("SELECT count(*) FROM stream_runs") == 5)
        #expect(try store.events(user: "alice", after: 40, limit: 10).map(\.payload) == [[99], [100]])
        #expect(try store.events(user: "carol", after: 40, limit: 10).map(\.seq) == [41])
    }

    @Test("R3: a group of 150 (more runs than one upsert statement holds) gets one run row each, and a fresh store reads every seq back")
    func runsOfALargeGroupSpanStatements() throws {
        let (database, store) = try sqliteStoreWithUsers()
        let members = (0..<150).map { "member\($0)" }
        let count = SQLiteStore.runsPerStatement * 2 + 22
        #expect(members.count == count, "two full statements and a shorter one")
        try store.transaction {
            for index in 0..<3 { _ = try store.appendEvent(users: members, payload: [UInt8(index)], now: 1) }
        }
        #expect(try store.connection.scalar("SELECT count(*) FROM stream_runs") == Int64(members.count))
        // The next transaction grows the same rows (the upsert's update path).
        try store.transaction { _ = try store.appendEvent(users: members, payload: [3], now: 2) }
        #expect(try store.connection.scalar("SELECT count(*) FROM stream_runs") == Int64(members.count))
        let reader = try database.open(readOnly: true)
        defer { reader.close() }
        for member in [members[0], members[63], members[64], members[128], members[149]] {
            #expect(try reader.events(user: member, after: 0, limit: 10).map(\.payload) == [[0], [1], [2], [3]])
        }
    }

    @Test("R3: events appended earlier in the open transaction are readable in it, and gone after a rollback")
    func readsInsideTheTransaction() throws {
        let (_, store) = try sqliteStoreWithUsers()
        _ = try store.appendEvent(user: "bob", payload: [1], now: 1)
        struct Refused: Error {}
        #expect(throws: Refused.self) {
            try store.transaction {
                _ = try store.appendEvent(users: ["alice", "bob"], payload: [2], now: 2)
                #expect(try store.events(user: "bob", after: 0, limit: 10).map(\.payload) == [[1], [2]])
                #expect(try store.oldestRetainedSeq(user: "alice") == 1)
                _ = try store.appendEvent(users: ["bob"], payload: [3], now: 3)
                throw Refused()
            }
        }
        #expect(try store.events(user: "bob", after: 0, limit: 10).map(\.payload) == [[1]])
        #expect(try store.events(user: "alice", after: 0, limit: 10).isEmpty)
        #expect(try store.appendEvent(users: ["alice", "bob"], payload: [4], now: 4) == [1, 2])
        #expect(try store.events(user: "bob", after: 0, limit: 10).map(\.payload) == [[1], [4]])
    }

    @Test("R3: reading a stream after its transaction committed writes nothing (only pending runs are written on read)")
    func readsAfterCommitDoNotWrite() throws {
        let (_, store) = try sqliteStoreWithUsers()
        _ = try store.appendEvent(users: ["alice", "bob"], payload: [1], now: 1)
        // Any write from here on fails: a read that rewrote the run would throw.
        try store.connection.executeScript("PRAGMA query_only = ON")
        #expect(try store.events(user: "alice", after: 0, limit: 10).map(\.payload) == [[1]])
        #expect(try store.oldestRetainedSeq(user: "bob") == 1)
        try store.connection.executeScript("PRAGMA query_only = OFF")
    }

    @Test("R3: pruning goes by storage order, so a clock that stepped back never cuts a hole in a stream")
    func pruneByStorageOrder() throws {
        let (_, store) = try sqliteStoreWithUsers()
        // seq 3 was stored after seq 2 with an earlier clock reading.
        for (index, time) in [100, 300, 100, 400].enumerated() { _ = try store.appendEvent(user: "alice", payload: [UInt8(index)], now: Int64(time)) }
        #expect(try store.pruneEvents(olderThan: 200, keepAtLeast: 0) == 1)
        #expect(try store.events(user: "alice", after: 0, limit: 10).map(\.seq) == [2, 3, 4])
        #expect(try store.oldestRetainedSeq(user: "alice") == 2)
        #expect(try store.pruneEvents(olderThan: 1_000, keepAtLeast: 0) == 3)
        #expect(try store.oldestRetainedSeq(user: "alice") == 5)
        #expect(try store.appendEvent(user: "alice", payload: [9], now: 1_001) == 5)
    }

    @Test("U1/U3: unread counts are counters: a send raises them for the others, only a first read lowers them")
    func unreadCounters() throws {
        let (_, store) = try sqliteStoreWithUsers()
        let group = try store.createGroup(title: "g", creator: "alice", members: ["bob", "carol"], now: 1)
        let sent = try send(3, from: "alice", in: group.id, store: store)
        _ = try send(1, from: "bob", in: group.id, store: store, startingAt: 2_000)
        #expect(try store.unreadCount(user: "alice", conversation: group.id) == 1)
        #expect(try store.unreadCount(user: "bob", conversation: group.id) == 3)
        #expect(try store.unreadCount(user: "carol", conversation: group.id) == 4)
        #expect(try store.markRead(user: "bob", messageIds: [sent[0].id, sent[0].id, sent[1].id], now: 5).map(\.id) == [sent[0].id, sent[1].id])
        #expect(try store.markRead(user: "bob", messageIds: [sent[0].id], now: 6).isEmpty)
        #expect(try store.unreadCounts(user: "bob") == [group.id: 1])
    }

    @Test("R5: a conversation cached inside a rolled-back savepoint is forgotten; its reused id has the new participants")
    func participantsCacheRollback() throws {
        let (_, store) = try sqliteStoreWithUsers()
        struct Refused: Error {}
        var rolledBack = ""
        try store.transaction {
            do {
                try store.transaction {
                    let group = try store.createGroup(title: "gone", creator: "alice", members: ["bob"], now: 1)
                    rolledBack = group.id
                    #expect(try store.isParticipant(user: "bob", conversation: group.id))  // cached now
                    throw Refused()
                }
            } catch is Refused {}
            let group = try store.createGroup(title: "kept", creator: "alice", members: ["carol"], now: 2)
            #expect(group.id == rolledBack, "SQLite hands the rolled-back row id out again")
            #expect(try !store.isParticipant(user: "bob", conversation: group.id))
            #expect(try store.conversation(id: group.id)?.participants == ["alice", "carol"])
        }
        #expect(try store.conversation(id: rolledBack)?.participants == ["alice", "carol"])
        #expect(try !store.isParticipant(user: "bob", conversation: rolledBack))
    }

    @Test("Migration 4 turns a version-3 file's stream rows into runs and its unread rows into the same counts")
    func migrationFromVersion3() throws {
        let database = try TemporaryDatabase()
        do {
            let old = try SQLiteConnection(path: database.path, readOnly: false, busyTimeoutMilliseconds: 1_000)
            for migration in Schema.migrations[0..<3] { try old.executeScript(migration) }
            try old.executeScript("PRAGMA user_version = 3")
            try old.executeScript(
                """
                INSERT INTO users (id, name) VALUES ('alice', 'Alice'), ('bob', 'Bob'), ('carol', 'Carol');
                INSERT INTO conversations (id, kind, title, created_at, last_activity) VALUES (1, 1, 'g', 1, 5);
                INSERT INTO participants (conversation_id, user_id) VALUES (1, 'alice'), (1, 'bob'), (1, 'carol');
                INSERT INTO messages (id, conversation_id, sender_id, client_message_id, kind, text, created_at) VALUES
                    (1, 1, 'alice', 'a1', 0, 'one', 2), (2, 1, 'alice', 'a2', 0, 'two', 3), (3, 1, 'bob', 'b1', 0, 'three', 4);
                -- bob read m1; carol read nothing; alice has bob's m3 unread.
                INSERT INTO unread (user_id, message_id, conversation_id) VALUES ('bob', 2, 1), ('carol', 1, 1), ('carol', 2, 1),
                    ('carol', 3, 1), ('alice', 3, 1);
                INSERT INTO receipts (message_id, user_id, read_at) VALUES (1, 'bob', 9);
                INSERT INTO event_heads (user_id, last_seq) VALUES ('alice', 2), ('bob', 5);
                INSERT INTO event_bodies (id, created_at, payload) VALUES (1, 10, x'61'), (2, 20, x'62'), (3, 30, x'63');
                INSERT INTO stream_entries (user_id, seq, body_id) VALUES ('alice', 1, 1), ('alice', 2, 2), ('bob', 4, 2), ('bob', 5, 3);
                """)
            old.close()
        }
        let store = try database.open()
        #expect(try store.unreadCounts(user: "alice") == ["c1": 1])
        #expect(try store.unreadCounts(user: "bob") == ["c1": 1])
        #expect(try store.unreadCounts(user: "carol") == ["c1": 3])
        #expect(try store.markRead(user: "bob", messageIds: ["m1", "m2"], now: 10).map(\.id) == ["m2"])
        #expect(try store.unreadCount(user: "bob", conversation: "c1") == 0)
        #expect(try store.events(user: "bob", after: 0, limit: 10)
            == [StoredEvent(seq: 4, payload: [0x62], createdAt: 20), StoredEvent(seq: 5, payload: [0x63], createdAt: 30)])
        #expect(try store.events(user: "alice", after: 1, limit: 10).map(\.payload) == [[0x62]])
        #expect(try store.appendEvent(users: ["alice", "bob", "carol"], payload: [1], now: 40) == [3, 6, 1])
        #expect(try store.integrityCheck())
    }

    /// One random step: an operation, a user subset, and a time.
    private static let steps = zip(Gen.int(in: 0...9), Gen.int(in: 1...7), Gen.int(in: 0...40)).array(of: 1...60)

    @Test("R3: random appends (to a group's participants, one user or another list), failed savepoints, prunes, clean reopens and crashes read back exactly like a model of the streams")
    func streamsMatchModel() async throws {
        await propertyCheck(count: 60, input: Self.steps) { steps in
            do {
                try StreamModelRun(steps: steps).run()
            } catch {
                Issue.record("store error: \(error)")
            }
        }
    }
}

/// The streams as plain lists, next to a real store that must agree after every step.
private struct StreamModelRun {
    let steps: [(Int, Int, Int)]
    let users = ["alice", "bob", "carol"]

    struct Entry: Equatable { var seq: Int64; var body: Int; var payload: [UInt8]; var time: Int64 }
    struct Refused: Error {}

    func run() throws {
        let (database, initial) = try sqliteStoreWithUsers()
        var store = initial
        // Appends to all three name this group as their audience: their runs' rows may lag (StreamCache).
        let group = try store.createGroup(title: "all", creator: "alice", members: ["bob", "carol"], now: 0).id
        var streams: [String: [Entry]] = [:]
        var heads: [String: Int64] = [:]
        var bodyTimes: [Int64] = []  // body k (in storage order) was created at bodyTimes[k]
        var liveBodies: Set<Int> = []  // bodies pruning has not deleted

        func append(_ subset: [String], time: Int64) throws {
            let body = bodyTimes.count
            let payload = [UInt8(truncatingIfNeeded: body)]
            _ = try store.appendEvent(users: subset, payload: payload, now: time, toParticipantsOf: subset == users ? group : nil)
            for user in subset {
                let seq = (heads[user] ?? 0) + 1
                heads[user] = seq
                streams[user, default: []].append(Entry(seq: seq, body: body, payload: payload, time: time))
            }
            bodyTimes.append(time)
            liveBodies.insert(body)
        }

        for (operation, mask, clock) in steps {
            let subset = users.enumerated().filter { mask & (1 << $0.offset) != 0 }.map(\.element)
            let time = Int64(clock * 10)
            switch operation {
            case 0...3:
                try append(subset, time: time)
            case 4, 5:
                // A batch: several appends in one transaction around a nested savepoint that fails and is undone.
                try store.transaction {
                    try append(subset, time: time)
                    _ = try? store.transaction {
                        _ = try store.appendEvent(users: users, payload: [0xEE], now: time, toParticipantsOf: group)
                        throw Refused()
                    }
                    try append(users, time: time)
                    // Users outside the subset skip a body here, which closes their run inside the transaction.
                    try append(subset, time: time)
                    try append(users, time: time)
                }
            case 6:
                // A whole batch that fails leaves nothing.
                _ = try? store.transaction {
                    _ = try store.appendEvent(users: subset, payload: [0xEE], now: time)
                    throw Refused()
                }
            case 7, 8:
                // The store's rule: the oldest bodies, up to the first live one created at or after the cutoff.
                let keep = clock % 3
                let cutoff = time
                let boundary = liveBodies.filter { bodyTimes[$0] >= cutoff }.min() ?? bodyTimes.count
                var expected = 0
                for user in users {
                    let head = heads[user] ?? 0
                    let before = streams[user]?.count ?? 0
                    streams[user]?.removeAll { $0.body < boundary && $0.seq <= head - Int64(keep) }
                    expected += before - (streams[user]?.count ?? 0)
                }
                let referenced = Set(streams.values.joined().map(\.body))
                liveBodies = liveBodies.filter { $0 >= boundary || referenced.contains($0) }
                #expect(try store.pruneEvents(olderThan: cutoff, keepAtLeast: keep) == expected)
                #expect(try store.connection.scalar("SELECT count(*) FROM event_bodies") == Int64(liveBodies.count))
            default:
                // A clean stop, or (odd clock) a crash: the store is dropped without close(), lagging rows unwritten.
                if clock % 2 == 0 { store.close() }
                store = try database.open()
            }
            for user in users {
                let model = streams[user] ?? []
                let stored = try store.events(user: user, after: 0, limit: 10_000)
                #expect(stored.map(\.seq) == model.map(\.seq), "\(user)'s seqs")
                #expect(stored.map(\.payload) == model.map(\.payload), "\(user)'s payloads")
                #expect(stored.map(\.createdAt) == model.map(\.time), "\(user)'s times")
                #expect(try store.latestSeq(user: user) == heads[user] ?? 0)
                #expect(try store.oldestRetainedSeq(user: user) == model.first?.seq ?? (heads[user] ?? 0) + 1)
                if let middle = model.dropFirst(model.count / 2).first {
                    let expected = Array(model.map(\.seq).drop { $0 < middle.seq }.prefix(2))
                    #expect(try store.events(user: user, after: middle.seq - 1, limit: 2).map(\.seq) == expected)
                }
            }
        }
        #expect(try store.integrityCheck())
    }
}
