import HeraldStore
import Testing

@Suite("Last seen (E2)")
struct LastSeenStoreTests {
    @Test("E2: last-seen times are stored for many users in one call, read back after a reopen, never moved back", arguments: StoreBackend.allCases)
    func storedAndKept(_ backend: StoreBackend) throws {
        let (database, store) = try storeWithUsers(backend)
        #expect(try store.lastSeen(users: ["alice", "bob", "carol"]).isEmpty, "nobody was seen yet")
        try store.transaction { try store.recordLastSeen(["alice": 5_000, "bob": 7_000, "nobody": 9_000]) }
        #expect(try store.lastSeen(users: ["alice", "bob", "carol", "nobody"]) == ["alice": 5_000, "bob": 7_000])
        // Another node saw alice later; an older time (a late writer) changes nothing.
        try store.recordLastSeen(["alice": 8_000])
        try store.recordLastSeen(["alice": 6_000, "bob": 7_500])
        // A rename (a reconnect with a new display name) keeps the time.
        try store.upsertUser(id: "alice", name: "Alice A.")
        store.close()

        let reopened = try database.open()
        #expect(try reopened.lastSeen(users: ["alice", "bob"]) == ["alice": 8_000, "bob": 7_500])
        #expect(try reopened.lastSeen(users: []).isEmpty)
    }

    @Test("E2: a last-seen write rolled back with its transaction leaves nothing", arguments: StoreBackend.allCases)
    func rolledBack(_ backend: StoreBackend) throws {
        let (_, store) = try storeWithUsers(backend)
        struct Abort: Error {}
        #expect(throws: Abort.self) {
            try store.transaction {
                try store.recordLastSeen(["carol": 1_234])
                throw Abort()
            }
        }
        #expect(try store.lastSeen(users: ["carol"]).isEmpty)
    }
}
