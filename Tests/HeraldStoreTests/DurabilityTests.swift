@testable import HeraldStore
import Testing

@Suite("Durability, transactions and failures")
struct DurabilityTests {
    @Test("Reopening the file keeps everything; migrations run once and are idempotent")
    func reopen() throws {
        let database = try TemporaryDatabase()
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
            #expect(try store.connection.scalar("PRAGMA user_version") == Int64(SQLiteStore.schemaVersion))
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

    @Test("A second connection (like `herald-server token`) can write while the first is open")
    func secondConnection() throws {
        let database = try TemporaryDatabase()
        let server = try database.open()
        try server.upsertUser(id: "alice", name: "Alice")
        let token = try database.open()
        try token.upsertUser(id: "bob", name: "Bob")
        #expect(try server.user(id: "bob")?.name == "Bob")
        #expect(try token.ensureSecret() == server.ensureSecret())
        token.close()
        #expect(try server.findOrCreateDirect(between: "alice", and: "bob", now: 1).created)
    }

    @Test("A second writer waits for the busy timeout and then fails with .busy, not a crash")
    func busy() throws {
        let database = try TemporaryDatabase()
        let holder = try database.open()
        let waiter = try SQLiteStore(path: database.path, busyTimeoutMilliseconds: 50)
        try holder.transaction {
            try holder.upsertUser(id: "alice", name: "Alice")
            do {
                try waiter.upsertUser(id: "bob", name: "Bob")
                Issue.record("wrote while another connection held the write lock")
            } catch let error as StoreError {
                #expect(error.kind == .busy)
            }
        }
        try waiter.upsertUser(id: "bob", name: "Bob")
        #expect(try holder.user(id: "bob") != nil)
    }

    @Test("A read-only database serves reads and fails writes with .readOnly")
    func readOnly() throws {
        let database = try TemporaryDatabase()
        let writer = try database.open()
        try writer.upsertUser(id: "alice", name: "Alice")
        try writer.upsertUser(id: "bob", name: "Bob")
        let c = try writer.findOrCreateDirect(between: "alice", and: "bob", now: 1).conversation
        _ = try send(2, from: "bob", in: c.id, store: writer)
        writer.close()

        let reader = try database.open(readOnly: true)
        #expect(try reader.user(id: "alice")?.name == "Alice")
        #expect(try reader.conversations(for: "alice").first?.unreadCount == 2)
        #expect(try reader.replay(user: "alice", after: 0, limit: 10) == .events([]))
        for write in [
            { try reader.upsertUser(id: "carol", name: "Carol") },
            { _ = try reader.insertMessage(conversation: c.id, sender: "alice", clientMessageId: "x", kind: .text, text: "hi", imageURL: nil, now: 5) },
            { _ = try reader.appendEvent(user: "alice", payload: [], now: 5) },
        ] as [() throws -> Void] {
            do {
                try write()
                Issue.record("a write succeeded on a read-only database")
            } catch let error as StoreError {
                #expect(error.kind == .readOnly)
            }
        }
        #expect(try reader.user(id: "carol") == nil)
    }

    @Test("Opening a missing file read-only fails with a StoreError")
    func missingReadOnly() throws {
        let database = try TemporaryDatabase()
        #expect(throws: StoreError.self) { try database.open(readOnly: true) }
    }

    @Test("Group commit: 500 inserts in one transaction commit together")
    func groupCommit() throws {
        let (database, store) = try storeWithUsers()
        let c = try store.findOrCreateDirect(between: "alice", and: "bob", now: 1).conversation
        let sent = try store.transaction { try send(500, from: "alice", in: c.id, store: store) }
        #expect(sent.count == 500)
        let other = try database.open()
        #expect(try other.unreadCount(user: "bob", conversation: c.id) == 500)
    }

    @Test("A throwing body rolls back every write of the transaction")
    func rollback() throws {
        struct Abort: Error {}
        let (_, store) = try storeWithUsers()
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

    @Test("A nested failure undoes only its own writes; the outer transaction goes on")
    func nested() throws {
        let (_, store) = try storeWithUsers()
        let c = try store.findOrCreateDirect(between: "alice", and: "bob", now: 1).conversation
        try store.transaction {
            _ = try send(1, from: "alice", in: c.id, store: store)
            // Carol is not a participant: this insert fails inside the group commit and is skipped.
            #expect(throws: StoreError.self) {
                try store.insertMessage(conversation: c.id, sender: "carol", clientMessageId: "x", kind: .text, text: nil, imageURL: nil, now: 2)
            }
            _ = try send(1, from: "bob", in: c.id, store: store)
        }
        #expect(try store.history(conversation: c.id, before: nil, limit: 10).count == 2)
    }

    @Test("A full database fails the write with .full and leaves the store usable")
    func full() throws {
        let (_, store) = try storeWithUsers()
        let c = try store.findOrCreateDirect(between: "alice", and: "bob", now: 1).conversation
        let pages = try store.connection.scalar("PRAGMA page_count") ?? 0
        try store.connection.executeScript("PRAGMA max_page_count = \(pages + 4)")
        let big = String(repeating: "x", count: 8_000)
        var failure: StoreError?
        for index in 0..<200 {
            do {
                _ = try store.insertMessage(conversation: c.id, sender: "alice", clientMessageId: "b\(index)", kind: .text, text: big, imageURL: nil, now: 2)
            } catch let error as StoreError {
                failure = error
                break
            }
        }
        #expect(failure?.kind == .full)
        let stored = try store.history(conversation: c.id, before: nil, limit: 1_000).count
        #expect(stored > 0 && stored < 200)
        #expect(try store.unreadCount(user: "bob", conversation: c.id) == stored)
        try store.upsertUser(id: "alice", name: "Still works")
    }

    @Test("Strict ids: prefix plus a canonical positive decimal")
    func recordIDs() {
        #expect(RecordID.parse(RecordID.message, "m1") == 1)
        #expect(RecordID.parse(RecordID.message, "m9223372036854775807") == Int64.max)
        for bad in ["m", "m0", "m01", "m-1", "m+1", "c1", "m1x", " m1", "m9223372036854775808", "M1"] {
            #expect(RecordID.parse(RecordID.message, bad) == nil, "\(bad)")
        }
        #expect(RecordID.format(RecordID.notification, 42) == "n42")
    }
}
