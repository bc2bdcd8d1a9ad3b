import Foundation
import HeraldStore
@testable import HeraldStorePostgres
import HeraldTestSupport
import Testing

/// The write clock: what a node keeps in memory between transactions (stream heads) follows the other nodes' writes
/// through their wake-ups, and when it cannot, nothing wrong is ever committed (R3: no seq twice, none lost).
@Suite("PostgreSQL: a node's memory of stream heads across other nodes' writes", .enabled(if: PostgresCluster.binariesAvailable, PostgresCluster.skipReason))
struct PostgresWriteClockTests {
    @Test("R3: node A's cached head follows node B's appends through B's wake-up: seqs 1, 2, 3 with the right bodies")
    func cacheFollowsOtherNode() throws {
        let (url, a) = try postgresStoreWithUsers()
        let b = try PostgresStore(url: url)
        #expect(try a.appendEvent(user: "alice", payload: [1], now: 1) == 1)
        #expect(try b.appendEvent(user: "alice", payload: [2], now: 2) == 2)
        #expect(try a.appendEvent(user: "alice", payload: [3], now: 3) == 3)
        #expect(try a.events(user: "alice", after: 0, limit: 10).map(\.payload) == [[1], [2], [3]])
    }

    @Test("R3: when the other node's wake-up is gone, a stale head is caught at COMMIT, nothing is stored, and the next try is right")
    func staleHeadNeverCommits() throws {
        let (url, a) = try postgresStoreWithUsers()
        let b = try PostgresStore(url: url)
        #expect(try a.appendEvent(user: "alice", payload: [1], now: 1) == 1)
        #expect(try b.appendEvent(user: "alice", payload: [2], now: 2) == 2)
        _ = try PostgresCluster.run("DELETE FROM stream_wakeups", database: url)
        #expect(throws: StoreError.self) { _ = try a.appendEvent(user: "alice", payload: [3], now: 3) }
        #expect(try a.appendEvent(user: "alice", payload: [3], now: 3) == 3)
        #expect(try a.events(user: "alice", after: 0, limit: 10).map(\.payload) == [[1], [2], [3]])
    }

    @Test("R3: a head is the end of the newest run, with no row of its own; pruning every run saves it, so a node with nothing in memory goes on after it")
    func headsSurvivePruning() throws {
        let (url, a) = try postgresStoreWithUsers()
        for index in 0..<5 { _ = try a.appendEvent(users: ["alice", "bob"], payload: [UInt8(index)], now: Int64(index)) }
        #expect(try PostgresCluster.run("SELECT count(*) FROM event_heads", database: url) == [["0"]])
        #expect(try PostgresStore(url: url).latestSeq(user: "alice") == 5)
        _ = try a.pruneEvents(olderThan: .max, keepAtLeast: 0)
        #expect(try PostgresCluster.run("SELECT count(*) FROM stream_runs", database: url) == [["0"]])
        let b = try PostgresStore(url: url)
        #expect(try b.latestSeq(user: "alice") == 5)
        #expect(try b.oldestRetainedSeq(user: "alice") == 6)
        #expect(try b.appendEvent(users: ["bob", "alice"], payload: [9], now: 9) == [6, 6])
        #expect(try a.appendEvent(user: "alice", payload: [10], now: 10) == 7)
    }

    @Test("R3: herald_send_message goes on from the heads the batch path left in its runs, and the batch path goes on after it")
    func sqlPublishContinuesStreams() throws {
        let (url, a) = try postgresStoreWithUsers()
        let conversation = try a.createGroup(title: "g", creator: "alice", members: ["bob"], now: 1)
        for index in 0..<3 { _ = try a.appendEvent(users: ["alice", "bob"], payload: [UInt8(index)], now: Int64(index)) }
        _ = try PostgresCluster.run(
            "SELECT * FROM herald_send_message(conversation => '\(conversation.id)', sender => 'alice', client_message_id => 'sql-1', message_text => 'hi')",
            database: url)
        #expect(try a.latestSeq(user: "bob") == 4)
        #expect(try a.appendEvent(user: "bob", payload: [5], now: 5) == 5)
        #expect(try a.events(user: "bob", after: 3, limit: 10).map(\.seq) == [4, 5])
    }

    @Test("R5: a conversation this node created is kept in memory: its first send reads no conversation")
    func createdConversationsAreKept() throws {
        let (_, a) = try postgresStoreWithUsers()
        // A send before, so the statements are prepared and a block of message ids is taken.
        let warm = try a.createGroup(title: "warm", creator: "alice", members: ["bob"], now: 1)
        _ = try a.transaction { try a.insertMessage(conversation: warm.id, sender: "alice", clientMessageId: "w", kind: .text, text: "hi", imageURL: nil, now: 2) }
        let dm = try a.findOrCreateDirect(between: "alice", and: "bob", now: 3).conversation
        let group = try a.createGroup(title: "g", creator: "alice", members: ["bob"], now: 3)
        func roundTripsOfSends(_ key: String) throws -> Int {
            let before = a.connection.roundTrips
            try a.transaction {
                for conversation in [dm, group] {
                    _ = try a.insertMessage(conversation: conversation.id, sender: "alice", clientMessageId: key + conversation.id, kind: .text, text: "hi", imageURL: nil, now: 4)
                }
            }
            return a.connection.roundTrips - before
        }
        let first = try roundTripsOfSends("first")
        let second = try roundTripsOfSends("second")  // read or not before, both are in memory now
        #expect(first == second, "first sends \(first) round trips, the next \(second)")
        #expect(try a.history(conversation: dm.id, before: nil, limit: 10).count == 2)
        #expect(try a.history(conversation: group.id, before: nil, limit: 10).count == 2)
    }

    @Test("A node that has been the only writer opens its transaction with the flush: a batch of sends is one round trip, an empty one none")
    func soleWriterBatchIsOneRoundTrip() throws {
        let (_, a) = try postgresStoreWithUsers()
        let dm = try a.findOrCreateDirect(between: "alice", and: "bob", now: 1).conversation
        func send(_ key: String) throws {
            _ = try a.insertMessage(conversation: dm.id, sender: "alice", clientMessageId: key, kind: .text, text: "hi", imageURL: nil, now: 2)
        }
        for index in 0...PostgresStore.soleWriterStreakToPresume { try a.transaction { try send("warm\(index)") } }
        var before = a.connection.roundTrips
        // As the sync thread runs a batch: each request in a savepoint of its own.
        try a.repeatableTransaction {
            try a.transaction { try send("one") }
            try a.transaction { try send("two") }
        }
        #expect(a.connection.roundTrips - before == 1)
        before = a.connection.roundTrips
        try a.repeatableTransaction {}
        #expect(a.connection.roundTrips - before == 0)
        // A plain transaction never presumes: its body may not be run twice.
        before = a.connection.roundTrips
        try a.transaction { try a.transaction { try send("three") } }
        #expect(a.connection.roundTrips - before == 2)
        #expect(try a.conversations(for: "bob").first?.unreadCount == PostgresStore.soleWriterStreakToPresume + 4)
    }

    @Test("R2, R3: a node presuming the write clock that meets another writer commits nothing and runs the batch again; storage order stays commit order")
    func presumedClockMeetsAnotherWriter() throws {
        let (url, a) = try postgresStoreWithUsers()
        let b = try PostgresStore(url: url)
        let dm = try a.findOrCreateDirect(between: "alice", and: "bob", now: 1).conversation
        var runs = 0
        func send(_ store: PostgresStore, _ key: String) throws -> MessageRecord {
            try store.repeatableTransaction {
                runs += 1
                return try store.transaction {
                    try store.insertMessage(conversation: dm.id, sender: "alice", clientMessageId: key, kind: .text, text: key, imageURL: nil, now: 2).message
                }
            }
        }
        let rounds = PostgresStore.soleWriterStreakToPresume + 1
        for index in 1...rounds { #expect(try a.appendEvent(user: "alice", payload: [UInt8(index)], now: 3) == Int64(index)) }
        let first = try send(a, "a1")  // a keeps the rest of its block of message ids
        #expect(try b.appendEvent(user: "alice", payload: [100], now: 4) == Int64(rounds + 1))
        let second = try send(b, "b1")
        // A send alone touches no stream: only the clock's check stands between a's kept ids and the message log.
        runs = 0
        let third = try send(a, "a2")
        #expect(runs == 2)
        #expect(try a.appendEvent(user: "alice", payload: [101], now: 6) == Int64(rounds + 2))
        let payloads = try a.events(user: "alice", after: Int64(rounds - 1), limit: 10).map(\.payload)
        #expect(payloads == [[UInt8(rounds)], [100], [101]])
        // Storage order is commit order: a's kept ids were dropped when b wrote.
        #expect(try a.history(conversation: dm.id, before: nil, limit: 10).map(\.clientMessageId).sorted() == ["a1", "a2", "b1"])
        #expect(first.order < second.order && second.order < third.order)
    }

    @Test("A batch refused because another writer came first keeps this node's memory: running again, it reads its conversation no more than a batch after any other writer's commit does")
    func refusalKeepsMemory() throws {
        let (url, a) = try postgresStoreWithUsers()
        let b = try PostgresStore(url: url)
        let dm = try a.findOrCreateDirect(between: "alice", and: "bob", now: 1).conversation
        let other = try b.findOrCreateDirect(between: "bob", and: "carol", now: 1).conversation
        // As the sync thread sends: a batch (repeatable), each request in a savepoint of its own.
        func batch(_ key: String) throws -> Int {
            let before = a.connection.roundTrips
            try a.repeatableTransaction {
                try a.transaction { _ = try a.insertMessage(conversation: dm.id, sender: "alice", clientMessageId: key, kind: .text, text: key, imageURL: nil, now: 2) }
            }
            return a.connection.roundTrips - before
        }
        for index in 0...PostgresStore.soleWriterStreakToPresume { _ = try batch("warm\(index)") }
        // b writes: a's next batch, presuming the clock, is refused at its flush and runs again.
        _ = try b.transaction { try b.insertMessage(conversation: other.id, sender: "bob", clientMessageId: "b1", kind: .text, text: "b", imageURL: nil, now: 3) }
        let refusedAndRerun = try batch("after-refusal")
        // The same again, without the refusal: b writes, a's batch reads the clock (it no longer presumes it).
        _ = try b.transaction { try b.insertMessage(conversation: other.id, sender: "bob", clientMessageId: "b2", kind: .text, text: "b", imageURL: nil, now: 4) }
        let afterCommit = try batch("after-commit")
        // Two round trips more: the refused flush and its ROLLBACK. A conversation read anew would be a third.
        #expect(refusedAndRerun == afterCommit + 2, "refused and run again: \(refusedAndRerun) round trips; after another writer's commit: \(afterCommit)")
        #expect(try a.history(conversation: dm.id, before: nil, limit: 2).map(\.clientMessageId) == ["after-commit", "after-refusal"])
    }

    @Test("R3: a batch refused because another writer came first runs once more, whole, after reading the clock; statements after the refusal cost no round trip")
    func repeatableTransactionRunsAgain() throws {
        let (url, a) = try postgresStoreWithUsers()
        let b = try PostgresStore(url: url)
        let rounds = PostgresStore.soleWriterStreakToPresume + 1
        for index in 1...rounds { _ = try a.appendEvent(user: "alice", payload: [UInt8(index)], now: 1) }
        _ = try a.user(id: "alice")  // prepared before, so each read below is one round trip
        #expect(try b.appendEvent(user: "alice", payload: [100], now: 2) == Int64(rounds + 1))
        var runs = 0
        var roundTripsOfFirstRun = 0
        let seqs = try a.repeatableTransaction {
            runs += 1
            let before = a.connection.roundTrips
            defer { if runs == 1 { roundTripsOfFirstRun = a.connection.roundTrips - before } }
            // The first read carries the opening; when it is refused, the next reads fail without reaching the server.
            for _ in 0..<3 { _ = try? a.transaction { try a.user(id: "alice") } }
            var seqs: [Int64] = []
            for payload: UInt8 in [101, 102] { seqs.append(try a.transaction { try a.appendEvent(user: "alice", payload: [payload], now: 3) }) }
            return seqs
        }
        #expect(runs == 2)
        #expect(roundTripsOfFirstRun == 1)
        #expect(seqs == [Int64(rounds + 2), Int64(rounds + 3)])
        #expect(try a.events(user: "alice", after: Int64(rounds), limit: 10).map(\.payload) == [[100], [101], [102]])
    }

    @Test("A send's row writes stay cheap: counters updated in place (nothing a send changes is indexed, pages keep room), no reference checks per message")
    func conversationUpdatesCanBeHot() throws {
        let (url, a) = try postgresStoreWithUsers()
        #expect(try PostgresCluster.run("SELECT count(*) FROM pg_indexes WHERE tablename = 'conversations' AND (indexdef LIKE '%last_activity%' OR indexdef LIKE '%message_count%')", database: url) == [["0"]])
        #expect(try PostgresCluster.run("SELECT reloptions::text FROM pg_class WHERE relname = 'conversations'", database: url) == [["{fillfactor=70}"]])
        // No per-row reference checks on messages (the writers check R5 first).
        #expect(try PostgresCluster.run("SELECT count(*) FROM pg_constraint WHERE conrelid = 'messages'::regclass AND contype = 'f'", database: url) == [["0"]])
        let dm = try a.findOrCreateDirect(between: "alice", and: "bob", now: 1).conversation
        for index in 0..<20 {
            _ = try a.transaction { try a.insertMessage(conversation: dm.id, sender: "alice", clientMessageId: "k\(index)", kind: .text, text: "hi", imageURL: nil, now: Int64(2 + index)) }
        }
        #expect(try a.conversation(id: dm.id)?.lastActivity == 21)
        #expect(try a.conversations(for: "bob").first?.unreadCount == 20)
    }
}
