@testable import HeraldStore
import Testing

/// The stream cache finds a repeated fan-out's users by slot; rolling back a savepoint that loaded a user takes the
/// slot back, and nothing may then reach that user through a remembered slot (R3: every seq once, to its own user).
@Suite("SQLite stream cache: slots of a repeated fan-out")
struct StreamCacheSlotTests {
    @Test("R3: remembered slots survive appends; a rolled-back load is forgotten and its slot goes to the next user loaded")
    func rolledBackLoadGivesItsSlotAway() throws {
        var cache = StreamCache()
        cache.load("alice", .init(head: 0))
        cache.load("bob", .init(head: 5))
        let pair = ["alice", "bob"]
        #expect(try cache.append(pair, body: 1) == [1, 6])
        #expect(try cache.append(pair, body: 2) == [2, 7], "the same list again: its remembered slots")

        let mark = cache.mark
        cache.load("carol", .init(head: 10))
        #expect(try cache.append(["alice", "bob", "carol"], body: 3) == [3, 8, 11])
        cache.rollBack(to: mark)
        #expect(cache.stream(of: "carol") == nil)
        #expect(try cache.append(["alice", "bob", "carol"], body: 3) == nil, "carol is not cached any more: nothing changes")
        #expect(cache.stream(of: "alice")?.head == 2 && cache.stream(of: "bob")?.head == 7)

        // dave takes the slot carol had: the three-user list must not reach him through it.
        cache.load("dave", .init(head: 20))
        #expect(try cache.append(["alice", "bob", "carol"], body: 3) == nil)
        #expect(try cache.append(["alice", "bob", "dave"], body: 3) == [3, 8, 21])
        #expect(try cache.append(pair, body: 4) == [4, 9])
        #expect(cache.stream(of: "dave")?.head == 21)

        // What the transaction writes before COMMIT: one current run per changed user, none for carol.
        let rows = cache.rowsToWrite(flush: false)
        #expect(Set(rows.map(\.user)) == ["alice", "bob", "dave"])
        #expect(rows.first { $0.user == "alice" }?.run == StreamRun(firstSeq: 1, firstBody: 1, count: 4))
        #expect(rows.first { $0.user == "dave" }?.run == StreamRun(firstSeq: 21, firstBody: 3, count: 1))
    }

    @Test("R3: an equal list in another array gets the same seqs, and is remembered in its place (the next one is found by identity)")
    func equalListInAnotherArray() throws {
        var cache = StreamCache()
        let users = (0..<40).map { "user\($0)" }
        for (index, user) in users.enumerated() { cache.load(user, .init(head: Int64(index))) }
        let announced = users
        #expect(try cache.append(announced, body: 1) == (0..<40).map { Int64($0) + 1 })
        // The same ids, built anew (as the participants cache hands out another array than the announcement's).
        let everyMessage = (0..<40).map { "user\($0)" }
        func base(_ list: [String]?) -> UnsafeRawPointer? { list?.withUnsafeBufferPointer { UnsafeRawPointer($0.baseAddress) } }
        #expect(base(everyMessage) != base(announced))
        #expect(try cache.append(everyMessage, body: 2) == (0..<40).map { Int64($0) + 2 })
        #expect(base(cache.rememberedFanOutUsers) == base(everyMessage))
        #expect(try cache.append(everyMessage, body: 3) == (0..<40).map { Int64($0) + 3 })
    }

    @Test("R3: rolling back a savepoint whose group messages only extended runs takes exactly those events back, also after a run closed")
    func rolledBackExtensionsTakeTheirEventsBack() throws {
        var cache = StreamCache()
        cache.load("alice", .init(head: 0))
        cache.load("bob", .init(head: 5))
        cache.load("carol", .init(head: 9))
        let group = ["alice", "bob", "carol"]
        #expect(try cache.append(group, body: 1) == [1, 6, 10], "first event of the transaction: new runs")
        #expect(try cache.append(group, body: 2) == [2, 7, 11], "the runs grow")

        let mark = cache.mark
        #expect(try cache.append(group, body: 3) == [3, 8, 12])
        #expect(try cache.append(["alice", "bob"], body: 4) == [4, 9])
        #expect(try cache.append(group, body: 5) == [5, 10, 13], "carol skipped body 4: her run closes, a new one starts")
        cache.rollBack(to: mark)

        #expect(cache.stream(of: "alice")?.head == 2 && cache.stream(of: "alice")?.run == StreamRun(firstSeq: 1, firstBody: 1, count: 2))
        #expect(cache.stream(of: "bob")?.head == 7 && cache.stream(of: "bob")?.run == StreamRun(firstSeq: 6, firstBody: 1, count: 2))
        #expect(cache.stream(of: "carol")?.head == 11 && cache.stream(of: "carol")?.run == StreamRun(firstSeq: 10, firstBody: 1, count: 2))
        #expect(try cache.append(group, body: 3) == [3, 8, 12], "the same seqs again, as if the savepoint never ran")
        let rows = cache.rowsToWrite(flush: false)
        #expect(rows.count == 3, "no run closed by the undone events is left to write: \(rows)")
        #expect(rows.first { $0.user == "carol" }?.run == StreamRun(firstSeq: 10, firstBody: 1, count: 3))
    }
}
