import HeraldStore
import Testing

@Suite("Durability and transactions")
struct DurabilityTests {
    @Test("Reopening keeps everything; migrations run once and are idempotent", arguments: StoreBackend.allCases)
    func reopen(_ backend: StoreBackend) throws {
        let database = try backend.makeDatabase()
        var conversationID = ""
        var messages: [MessageRecord] = []
        do {
            let store = try database.open()
            try store.upsertUser(id: "alice", name: "Alice")
            try store.upsertUser(id: "bob", name: "Bob")
            conversationID = try store.findOrCreateDirect(between: "alice", and: "bob", now: 1).conversation.id
            messages = try send(4, from: "bob", in: conversationID, store: store)
            _ = try store.markRead(user: "alice", messageIds: [messages[0].id], now: 9)
            _ = try store.appendEvent(user: "alice", payload: [1, 2], now: 9)
            _ = try store.createNotification(user: "alice", kind: "system", actor: nil, text: "hi", url: nil, now: 9)
            try store.setSecret([42])
            store.close()
            #expect(throws: StoreError.self) { try store.user(id: "alice") }
        }
        for round in 0..<2 {
            let store = try database.open()
            #expect(try store.storedSchemaVersion() == store.currentSchemaVersion)
            #expect(try store.user(id: "bob")?.name == "Bob")
            #expect(try store.history(conversation: conversationID, before: nil, limit: 10) == messages.reversed())
            #expect(try store.unreadCount(user: "alice", conversation: conversationID) == 3)
            #expect(try store.latestSeq(user: "alice") == Int64(1 + round))
            #expect(try store.unreadNotificationCount(user: "alice") == 1)
            #expect(try store.secret() == [42])
            #expect(try store.integrityCheck())
            // Sequences keep counting after a reopen.
            #expect(try store.appendEvent(user: "alice", payload: [], now: 10) == Int64(2 + round))
            store.close()
        }
    }

    @Test("A second connection (like `herald-server token`) can write while the first is open", arguments: StoreBackend.allCases)
    func secondConnection(_ backend: StoreBackend) throws {
        let database = try backend.makeDatabase()
        let server = try database.open()
        try server.upsertUser(id: "alice", name: "Alice")
        let token = try database.open()
        try token.upsertUser(id: "bob", name: "Bob")
        #expect(try server.user(id: "bob")?.name == "Bob")
        #expect(try token.ensureSecret() == server.ensureSecret())
        token.close()
        #expect(try server.findOrCreateDirect(between: "alice", and: "bob", now: 1).created)
    }

    @Test("A read-only store serves reads and fails writes with .readOnly", arguments: StoreBackend.allCases)
    func readOnly(_ backend: StoreBackend) throws {
        let (database, writer) = try storeWithUsers(backend)
        let c = try writer.findOrCreateDirect(between: "alice", and: "bob", now: 1).conversation
        _ = try send(2, from: "bob", in: c.id, store: writer)
        writer.close()

        let reader = try database.open(readOnly: true)
        #expect(try reader.user(id: "alice")?.name == "Alice")
        #expect(try reader.conversations(for: "alice").first?.unreadCount == 2)
        #expect(try reader.replay(user: "alice", after: 0, limit: 10) == .events([]))
        for write in [
            { try reader.upsertUser(id: "dave", name: "Dave") },
            { _ = try reader.insertMessage(conversation: c.id, sender: "alice", clientMessageId: "x", kind: .text, text: "hi", imageURL: nil, now: 5) },
            { _ = try reader.appendEvent(user: "alice", payload: [], now: 5) },
        ] as [() throws -> Void] {
            do {
                try write()
                Issue.record("a write succeeded on a read-only store")
            } catch let error as StoreError {
                #expect(error.kind == .readOnly)
            }
        }
        #expect(try reader.user(id: "dave") == nil)
    }

    @Test("Group commit: 500 inserts in one transaction commit together, visible to another connection only after",
          arguments: StoreBackend.allCases)
    func groupCommit(_ backend: StoreBackend) throws {
        let (database, store) = try storeWithUsers(backend)
        let c = try store.findOrCreateDirect(between: "alice", and: "bob", now: 1).conversation
        let other = try database.open()
        let sent = try store.transaction {
            let sent = try send(500, from: "alice", in: c.id, store: store)
            #expect(try other.unreadCount(user: "bob", conversation: c.id) == 0)
            return sent
        }
        #expect(sent.count == 500)
        #expect(try other.unreadCount(user: "bob", conversation: c.id) == 500)
    }

    @Test("A throwing body rolls back every write of the transaction", arguments: StoreBackend.allCases)
    func rollback(_ backend: StoreBackend) throws {
        struct Abort: Error {}
        let (_, store) = try storeWithUsers(backend)
        let c = try store.findOrCreateDirect(between: "alice", and: "bob", now: 1).conversation
        #expect(throws: Abort.self) {
            try store.transaction {
                _ = try send(500, from: "alice", in: c.id, store: store)
                _ = try store.appendEvent(user: "bob", payload: [1], now: 2)
                throw Abort()
            }
        }
        #expect(try store.history(conversation: c.id, before: nil, limit: 10).isEmpty)
        #expect(try store.unreadCount(user: "bob", conversation: c.id) == 0)
        #expect(try store.latestSeq(user: "bob") == 0)
        // The connection is clean afterwards.
        #expect(try store.appendEvent(user: "bob", payload: [1], now: 3) == 1)
    }

    @Test("A nested failure undoes only its own writes; the outer transaction goes on", arguments: StoreBackend.allCases)
    func nested(_ backend: StoreBackend) throws {
        let (_, store) = try storeWithUsers(backend)
        let c = try store.findOrCreateDirect(between: "alice", and: "bob", now: 1).conversation
        try store.transaction {
            _ = try send(1, from: "alice", in: c.id, store: store)
            // Carol is not a participant: this insert fails inside the group commit and is skipped.
            #expect(throws: StoreError.self) {
                try store.insertMessage(conversation: c.id, sender: "carol", clientMessageId: "x", kind: .text, text: nil, imageURL: nil, now: 2)
            }
            // A nested transaction whose statement fails in the database (unique key) fails as a whole.
            #expect(throws: StoreError.self) {
                try store.transaction { try store.insertAPIKey(APIKeyRecord(id: "k", name: "a", hash: [1], createdAt: 1)) }
                try store.transaction { try store.insertAPIKey(APIKeyRecord(id: "k", name: "b", hash: [2], createdAt: 2)) }
            }
            _ = try send(1, from: "bob", in: c.id, store: store)
        }
        #expect(try store.history(conversation: c.id, before: nil, limit: 10).count == 2)
        #expect(try store.apiKey(id: "k")?.name == "a")
    }
}
