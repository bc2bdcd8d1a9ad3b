import Foundation
@testable import HeraldStore
import Testing

/// A group's runs that only grow are not rewritten at every COMMIT (StreamCache): their rows may lag behind, and the
/// file still leads to every run's end through the audience stored with each body (migration 12).
@Suite("SQLite: stream rows that lag behind their runs (R3)")
struct SQLiteLaggingRunTests {
    /// The count each member's newest run row holds in the file.
    private func storedCounts(_ store: SQLiteStore, _ users: [String]) throws -> [Int64] {
        try users.map { user in
            try store.connection.scalar("SELECT count FROM stream_runs WHERE user_id = ? ORDER BY first_seq DESC LIMIT 1", .text(user)) ?? 0
        }
    }

    /// alice, bob and carol, and their group.
    private func groupStore() throws -> (TemporaryDatabase, SQLiteStore, group: String, members: [String]) {
        let (database, store) = try sqliteStoreWithUsers()
        let group = try store.createGroup(title: "g", creator: "alice", members: ["bob", "carol"], now: 0)
        return (database, store, group.id, group.participants)
    }

    private func appendToGroup(_ store: SQLiteStore, _ group: String, _ members: [String], _ payload: UInt8) throws -> [Int64] {
        try store.appendEvent(users: members, payload: [payload], now: 1, toParticipantsOf: group)
    }

    @Test("R3: transactions that only grow a group's runs leave the rows as the first commit wrote them; every reader still reads each stream to its end")
    func grownRunsAreNotRewritten() throws {
        let (database, store, group, members) = try groupStore()
        for index in 0..<10 { #expect(try appendToGroup(store, group, members, UInt8(index)) == Array(repeating: Int64(index + 1), count: 3)) }
        #expect(try storedCounts(store, members) == [1, 1, 1], "nine commits grew the runs without rewriting a row")
        let reader = try database.open(readOnly: true)
        defer { reader.close() }
        for member in members {
            #expect(try reader.latestSeq(user: member) == 10)
            #expect(try reader.events(user: member, after: 0, limit: 100).map(\.payload) == (0..<10).map { [UInt8($0)] })
            #expect(try reader.events(user: member, after: 7, limit: 100).map(\.seq) == [8, 9, 10])
            #expect(try store.events(user: member, after: 4, limit: 2).map(\.seq) == [5, 6])
        }
    }

    @Test("R3: a store stopped without close() (a crash) is repaired at the next open: rows current, every seq read back, the next event gets the next seq")
    func crashIsRepairedAtOpen() throws {
        let (database, first, group, members) = try groupStore()
        for index in 0..<5 { _ = try appendToGroup(first, group, members, UInt8(index)) }
        _ = try first.appendEvent(user: "bob", payload: [50], now: 2)  // one user's audience: bob's run grows too
        #expect(try storedCounts(first, members) == [1, 1, 1])
        // `first` is never closed: its lagging rows are not written by it.
        let second = try database.open()
        defer { second.close() }
        #expect(try storedCounts(second, members) == [5, 6, 5], "repaired at open")
        let seqs = try second.appendEvent(users: members, payload: [60], now: 3, toParticipantsOf: group)
        #expect(seqs == [6, 7, 6])
        let bob = try second.events(user: "bob", after: 0, limit: 100)
        #expect(bob.map(\.payload) == [[0], [1], [2], [3], [4], [50], [60]], "\(bob.map(\.seq))")
        #expect(try second.events(user: "carol", after: 0, limit: 100).map(\.seq) == Array(1...6))
        #expect(try second.integrityCheck())
    }

    @Test("R3: close() writes every lagging row, and a flush writes them at least every StreamCache.flushEveryCommits commits")
    func closeAndPeriodicFlushWriteRows() throws {
        let (database, store, group, members) = try groupStore()
        let commits = StreamCache.flushEveryCommits
        // The first commit writes the rows; the next `commits - 1` leave them behind.
        for index in 0..<commits { _ = try appendToGroup(store, group, members, UInt8(truncatingIfNeeded: index)) }
        #expect(try storedCounts(store, members) == [1, 1, 1])
        _ = try appendToGroup(store, group, members, 0)
        #expect(try storedCounts(store, members) == Array(repeating: Int64(commits + 1), count: 3), "the next commit flushed")
        for index in 0..<3 { _ = try appendToGroup(store, group, members, UInt8(index)) }
        #expect(try storedCounts(store, members) == Array(repeating: Int64(commits + 1), count: 3))
        store.close()
        let reopened = try database.open(readOnly: true)
        defer { reopened.close() }
        #expect(try storedCounts(reopened, members) == Array(repeating: Int64(commits + 4), count: 3))
    }

    @Test("R3: a body sent to a list of users that is no conversation's participants gets its runs written at COMMIT")
    func bodiesWithoutAudienceAreWritten() throws {
        let (_, store, group, members) = try groupStore()
        for index in 0..<3 { _ = try appendToGroup(store, group, members, UInt8(index)) }
        #expect(try store.appendEvent(users: ["alice", "bob"], payload: [9], now: 2) == [4, 4])
        #expect(try storedCounts(store, members) == [4, 4, 1], "alice's and bob's rows written, carol's may lag")
    }

    @Test("R3: a participant who leaves has their row written first; after a crash the group's later bodies are not counted as theirs")
    func leaverRowIsWritten() throws {
        let (database, first, group, members) = try groupStore()
        for index in 0..<4 { _ = try appendToGroup(first, group, members, UInt8(index)) }
        try first.transaction { try first.removeParticipant(user: "carol", conversation: group) }
        let rest = members.filter { $0 != "carol" }
        for index in 4..<7 { _ = try appendToGroup(first, group, rest, UInt8(index)) }
        // A crash: `first` is never closed.
        let second = try database.open()
        defer { second.close() }
        #expect(try second.latestSeq(user: "carol") == 4)
        #expect(try second.events(user: "carol", after: 0, limit: 100).map(\.payload) == (0..<4).map { [UInt8($0)] })
        #expect(try second.latestSeq(user: "alice") == 7)
        #expect(try second.appendEvent(user: "carol", payload: [99], now: 3) == 5)
    }

    @Test("R3: pruning keeps every body a lagging row's run still holds")
    func pruningSeesLaggingRuns() throws {
        let (_, store, group, members) = try groupStore()
        for index in 0..<6 {
            _ = try store.appendEvent(users: members, payload: [UInt8(index)], now: Int64(index), toParticipantsOf: group)
        }
        #expect(try storedCounts(store, members) == [1, 1, 1])
        // Everything is old; each user keeps their newest 4.
        #expect(try store.pruneEvents(olderThan: 100, keepAtLeast: 4) == 6)
        for member in members {
            #expect(try store.events(user: member, after: 0, limit: 100).map(\.payload) == (2..<6).map { [UInt8($0)] })
        }
    }
}
