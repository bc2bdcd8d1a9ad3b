import HeraldStore
import Testing

@Suite("Per-user event log (R3)")
struct EventLogTests {
    @Test("R3: sequences are 1, 2, 3, … per user, without gaps or duplicates", arguments: StoreBackend.allCases)
    func sequences(_ backend: StoreBackend) throws {
        let (_, store) = try storeWithUsers(backend)
        var aliceSeqs: [Int64] = []
        for index in 0..<50 {
            aliceSeqs.append(try store.appendEvent(user: "alice", payload: Array("{\"i\":\(index)}".utf8), now: Int64(index)))
            if index.isMultiple(of: 5) { _ = try store.appendEvent(user: "bob", payload: [1], now: Int64(index)) }
        }
        #expect(aliceSeqs == Array(1...50))
        #expect(try store.latestSeq(user: "alice") == 50)
        #expect(try store.latestSeq(user: "bob") == 10)
        #expect(try store.latestSeq(user: "carol") == 0)
        let after = try store.events(user: "alice", after: 45, limit: 100)
        #expect(after.map(\.seq) == [46, 47, 48, 49, 50])
        #expect(after.first?.payload == Array("{\"i\":45}".utf8))
        #expect(try store.events(user: "alice", after: 0, limit: 3).map(\.seq) == [1, 2, 3])
        #expect(try store.events(user: "alice", after: 50, limit: 10).isEmpty)
    }

    @Test("R3: pruning keeps the newest, reports the oldest retained seq, and never reuses a seq", arguments: StoreBackend.allCases)
    func prune(_ backend: StoreBackend) throws {
        let (_, store) = try storeWithUsers(backend)
        for index in 0..<20 { _ = try store.appendEvent(user: "alice", payload: [UInt8(index)], now: Int64(index * 1_000)) }
        for index in 0..<3 { _ = try store.appendEvent(user: "bob", payload: [], now: Int64(index)) }
        #expect(try store.oldestRetainedSeq(user: "alice") == 1)
        // Everything before t=15000 is old, but at least 8 per user stay: alice keeps 13...20, bob keeps all 3.
        let deleted = try store.pruneEvents(olderThan: 15_000, keepAtLeast: 8)
        #expect(deleted == 12)
        #expect(try store.oldestRetainedSeq(user: "alice") == 13)
        #expect(try store.oldestRetainedSeq(user: "bob") == 1)
        #expect(try store.events(user: "alice", after: 0, limit: 100).map(\.seq) == Array(13...20))
        #expect(try store.replay(user: "alice", after: 5, limit: 100) == .resync)
        #expect(try store.replay(user: "alice", after: 12, limit: 2) == .events(try store.events(user: "alice", after: 12, limit: 2)))
        #expect(try store.replay(user: "alice", after: 21, limit: 10) == .resync)
        // Prune everything: the head stays, so the next seq continues and an up-to-date cursor still resumes.
        _ = try store.pruneEvents(olderThan: .max, keepAtLeast: 0)
        #expect(try store.oldestRetainedSeq(user: "alice") == 21)
        #expect(try store.replay(user: "alice", after: 20, limit: 10) == .events([]))
        #expect(try store.appendEvent(user: "alice", payload: [9], now: 99_000) == 21)
        #expect(try store.replay(user: "carol", after: 0, limit: 10) == .events([]))
    }
}
