import HeraldStore
import Testing

/// `users(excluding:after:prefix:limit:)`: the people a user can start a conversation with. Every case runs on SQLite
/// and on PostgreSQL: the two must answer exactly alike (order, paging, prefix matching).
@Suite("User directory")
struct UserDirectoryTests {
    @Test("Every user but the caller, ordered by id, with names", arguments: StoreBackend.allCases)
    func everyoneButTheCaller(_ backend: StoreBackend) throws {
        let (_, store) = try storeWithUsers(backend)
        #expect(try store.users(excluding: "alice", after: nil, prefix: nil, limit: 50)
            == [UserRecord(id: "bob", name: "Bob"), UserRecord(id: "carol", name: "Carol")])
        #expect(try store.users(excluding: "carol", after: nil, prefix: nil, limit: 50).map(\.id) == ["alice", "bob"])
        // A caller the store does not know (a token for a user created elsewhere) just sees everyone.
        #expect(try store.users(excluding: "nobody", after: nil, prefix: nil, limit: 50).map(\.id) == ["alice", "bob", "carol"])
    }

    @Test("Ids are ordered by their bytes, and pages after a cursor join up to the whole list with nothing twice", arguments: StoreBackend.allCases)
    func pagesJoinUp(_ backend: StoreBackend) throws {
        let (_, store) = try storeWithUsers(backend)
        // '-' < digits < upper case < '_' < lower case in bytes; a locale-aware order would interleave them.
        let extra = ["Zed", "_under", "a.b", "bo", "-dash", "9lives", "Bob2", "bob_", "bobby"]
        for id in extra { try store.upsertUser(id: id, name: "User \(id)") }
        let expected = (["bob", "carol"] + extra).sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        var seen: [String] = []
        var cursor: String?
        for _ in 0..<20 {
            let page = try store.users(excluding: "alice", after: cursor, prefix: nil, limit: 3)
            seen += page.map(\.id)
            guard page.count == 3, let last = page.last?.id else { break }
            cursor = last
        }
        #expect(seen == expected)
        #expect(try store.users(excluding: "alice", after: "bob", prefix: nil, limit: 50).map(\.id) == ["bob_", "bobby", "carol"], "strictly after the cursor")
        #expect(try store.users(excluding: "alice", after: "bobb", prefix: nil, limit: 50).map(\.id) == ["bobby", "carol"], "a cursor need not exist")
        #expect(try store.users(excluding: "alice", after: nil, prefix: nil, limit: 0).isEmpty)
    }

    @Test("A prefix matches the start of the id or of the name, ASCII letters in either case", arguments: StoreBackend.allCases)
    func prefixMatchesIdOrName(_ backend: StoreBackend) throws {
        let (_, store) = try storeWithUsers(backend)
        try store.upsertUser(id: "dave", name: "Zed Dave")
        try store.upsertUser(id: "zoe", name: "Zoë")
        #expect(try store.users(excluding: "alice", after: nil, prefix: "BO", limit: 50).map(\.id) == ["bob"])
        #expect(try store.users(excluding: "alice", after: nil, prefix: "z", limit: 50).map(\.id) == ["dave", "zoe"], "id or name")
        #expect(try store.users(excluding: "alice", after: nil, prefix: "ZED D", limit: 50).map(\.id) == ["dave"])
        #expect(try store.users(excluding: "alice", after: nil, prefix: "ave", limit: 50).isEmpty, "a prefix, not a substring")
        #expect(try store.users(excluding: "alice", after: nil, prefix: "ali", limit: 50).isEmpty, "never the caller")
        #expect(try store.users(excluding: "alice", after: nil, prefix: "", limit: 50).count == 4, "empty is no filter")
        // Paging and filtering together.
        #expect(try store.users(excluding: "alice", after: "dave", prefix: "z", limit: 50).map(\.id) == ["zoe"])
    }

    @Test("Wildcards in a prefix match themselves, and letters outside ASCII match exactly on every store", arguments: StoreBackend.allCases)
    func prefixIsLiteral(_ backend: StoreBackend) throws {
        let (_, store) = try storeWithUsers(backend)
        for (id, name) in [("a_b", "Under"), ("axb", "Cross"), ("pct", "100% sure"), ("pcx", "100 x"), ("back", #"C:\dir"#), ("emile", "Émile")] {
            try store.upsertUser(id: id, name: name)
        }
        #expect(try store.users(excluding: "alice", after: nil, prefix: "a_", limit: 50).map(\.id) == ["a_b"])
        #expect(try store.users(excluding: "alice", after: nil, prefix: "100%", limit: 50).map(\.id) == ["pct"])
        #expect(try store.users(excluding: "alice", after: nil, prefix: "%", limit: 50).isEmpty)
        #expect(try store.users(excluding: "alice", after: nil, prefix: #"c:\"#, limit: 50).map(\.id) == ["back"])
        #expect(try store.users(excluding: "alice", after: nil, prefix: "Ém", limit: 50).map(\.id) == ["emile"])
        // Only ASCII letters fold: SQLite's LIKE folds nothing else, so PostgreSQL must not either.
        #expect(try store.users(excluding: "alice", after: nil, prefix: "ém", limit: 50).isEmpty)
    }
}
