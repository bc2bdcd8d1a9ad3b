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
}
