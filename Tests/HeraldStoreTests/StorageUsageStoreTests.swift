import Foundation
import HeraldStoreProtocol
import Testing

/// The per-user daily storage quota in each store: a charge that would pass the limit is refused in the write itself,
/// per user and per day, seen alike by another connection (another node), undone with a rolled-back savepoint, and
/// past days are pruned.
@Suite("Store: daily storage quota")
struct StorageUsageStoreTests {
    @Test("Charges add up to the limit exactly; one byte more is refused; users and days are counted apart", arguments: StoreBackend.allCases)
    func chargesStopAtTheLimit(_ backend: StoreBackend) throws {
        let (database, store) = try storeWithUsers(backend)
        defer { store.close() }
        #expect(try store.chargeStorage(user: "alice", day: 100, bytes: 600, limit: 1_000))
        #expect(try store.chargeStorage(user: "alice", day: 100, bytes: 400, limit: 1_000), "exactly at the limit is allowed")
        #expect(try !store.chargeStorage(user: "alice", day: 100, bytes: 1, limit: 1_000))
        #expect(try store.chargeStorage(user: "bob", day: 100, bytes: 1_000, limit: 1_000), "another user has their own allowance")
        #expect(try store.chargeStorage(user: "alice", day: 101, bytes: 1_000, limit: 1_000), "the next day renews it")
        #expect(try !store.chargeStorage(user: "carol", day: 100, bytes: 1_001, limit: 1_000), "one charge over the limit is refused whole")
        #expect(try store.chargeStorage(user: "carol", day: 100, bytes: 1_000, limit: 1_000), "and costs nothing")

        let other = try database.open()
        defer { other.close() }
        #expect(try !other.chargeStorage(user: "alice", day: 100, bytes: 1, limit: 1_000), "another connection sees the same usage")
    }

    @Test("A charge inside a savepoint that rolls back is undone", arguments: StoreBackend.allCases)
    func rolledBackChargeIsUndone(_ backend: StoreBackend) throws {
        let (_, store) = try storeWithUsers(backend)
        defer { store.close() }
        struct Refused: Error {}
        var charged: [Bool] = []
        try store.transaction { () throws -> Void in
            charged.append(try store.chargeStorage(user: "alice", day: 7, bytes: 300, limit: 1_000))
            do {
                try store.transaction { () throws -> Void in
                    charged.append(try store.chargeStorage(user: "alice", day: 7, bytes: 700, limit: 1_000))
                    throw Refused()
                }
            } catch is Refused {}
        }
        #expect(charged == [true, true])
        #expect(try store.chargeStorage(user: "alice", day: 7, bytes: 700, limit: 1_000), "the rolled-back 700 bytes were not kept")
        #expect(try !store.chargeStorage(user: "alice", day: 7, bytes: 1, limit: 1_000))
    }

    @Test("Pruning forgets the days before the given one and keeps that day and later", arguments: StoreBackend.allCases)
    func pruneForgetsPastDays(_ backend: StoreBackend) throws {
        let (_, store) = try storeWithUsers(backend)
        defer { store.close() }
        for day in Int64(10)...12 { #expect(try store.chargeStorage(user: "alice", day: day, bytes: 1_000, limit: 1_000)) }
        #expect(try store.pruneStorageUsage(before: 11) == 1)
        #expect(try store.chargeStorage(user: "alice", day: 10, bytes: 1_000, limit: 1_000), "day 10 was forgotten")
        #expect(try !store.chargeStorage(user: "alice", day: 11, bytes: 1, limit: 1_000), "day 11 was kept")
    }
}
