@testable import HeraldSync
import Testing

/// This node's shares of the daily storage allowances, against a stand-in for the store's atomic check-and-add (the
/// same rule the stores implement: add unless the day's total would pass the limit).
@Suite("Storage quota: a node's share of each user's daily allowance")
struct StorageAllowancesTests {
    /// The store's `storage_usage` for one user and day, counting the queries.
    final class Ledger {
        var reserved: Int64 = 0
        var queries = 0
        let limit: Int64
        init(limit: Int64) { self.limit = limit }
        func reserve(_ bytes: Int64) -> Bool {
            queries += 1
            guard reserved + bytes <= limit else { return false }
            reserved += bytes
            return true
        }
    }

    @Test("Small messages are spent from one reserved chunk: one store query per chunk, not per message")
    func chunksSpareQueries() {
        let quota = StorageQuota(bytesPerDay: 128 << 20)
        let ledger = Ledger(limit: quota.bytesPerDay)
        var allowances = StorageAllowances()
        var refused = 0
        for _ in 0..<1_000 where !allowances.spend(100, user: "alice", day: 1, quota: quota, reserve: ledger.reserve) { refused += 1 }
        #expect(refused == 0)
        #expect(ledger.queries == 2, "100,000 bytes from 64 KiB chunks")
        #expect(ledger.reserved == 2 * quota.reservationChunk)
    }

    @Test("Everything spent never passes the quota; near it exactly the message's cost is reserved; a refusal is remembered for the day")
    func neverPastTheQuota() {
        let quota = StorageQuota(bytesPerDay: 1_000)  // chunk: 62 bytes
        let ledger = Ledger(limit: quota.bytesPerDay)
        var allowances = StorageAllowances()
        var spent: Int64 = 0
        for cost: Int64 in [450, 450, 40, 30, 100, 20] where allowances.spend(cost, user: "alice", day: 1, quota: quota, reserve: ledger.reserve) {
            spent += cost
        }
        #expect(spent == 990 && spent <= quota.bytesPerDay && ledger.reserved <= quota.bytesPerDay)
        let queries = ledger.queries
        let again = allowances.spend(100, user: "alice", day: 1, quota: quota, reserve: ledger.reserve)
        #expect(!again)
        #expect(ledger.queries == queries, "a cost the store refused today is refused without asking again")
        let smaller = allowances.spend(10, user: "alice", day: 1, quota: quota, reserve: ledger.reserve)
        #expect(smaller, "a smaller one still fits")
        let nextDay = allowances.spend(450, user: "alice", day: 2, quota: quota, reserve: Ledger(limit: quota.bytesPerDay).reserve)
        #expect(nextDay, "the next day starts afresh")
    }

    @Test("Two nodes sharing one store ledger give a user one allowance between them")
    func nodesShareOneLedger() {
        let quota = StorageQuota(bytesPerDay: 10_000)
        let ledger = Ledger(limit: quota.bytesPerDay)
        var nodeA = StorageAllowances(), nodeB = StorageAllowances()
        var spent: Int64 = 0
        for round in 0..<400 {
            var node = round.isMultiple(of: 2) ? nodeA : nodeB
            if node.spend(97, user: "alice", day: 1, quota: quota, reserve: ledger.reserve) { spent += 97 }
            if round.isMultiple(of: 2) { nodeA = node } else { nodeB = node }
        }
        #expect(spent <= quota.bytesPerDay)
        #expect(spent >= quota.bytesPerDay - 2 * quota.reservationChunk, "at most one unspent chunk per node is held back")
    }

    @Test("Pruning forgets shares of past days")
    func pruneForgetsPastDays() {
        let quota = StorageQuota(bytesPerDay: 1_000)
        var allowances = StorageAllowances()
        _ = allowances.spend(10, user: "alice", day: 1, quota: quota) { _ in true }
        _ = allowances.spend(10, user: "bob", day: 2, quota: quota) { _ in true }
        allowances.prune(before: 2)
        #expect(allowances.count == 1)
    }
}
