import HeraldStore
@testable import HeraldStorePostgres
import Testing

@Suite("PostgreSQL: durability, transactions and failures", .enabled(if: PostgresCluster.binariesAvailable, PostgresCluster.skipReason))
struct PostgresDurabilityTests {
    @Test("Reconnecting keeps everything; migrations run once and are idempotent")
    func reopen() throws {
        let url = try PostgresCluster.newDatabase()
        var conversationID = ""
        var messages: [MessageRecord] = []
        do {
            let store = try PostgresStore(url: url)
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
            let store = try PostgresStore(url: url)
            #expect(try store.schemaVersionStored() == Int64(PostgresStore.schemaVersion))
            #expect(try store.user(id: "bob")?.name == "Bob")
            #expect(try store.history(conversation: conversationID, before: nil, limit: 10) == messages.reversed())
            #expect(try store.unreadCount(user: "alice", conversation: conversationID) == 3)
            #expect(try store.latestSeq(user: "alice") == Int64(1 + round))
            #expect(try store.unreadNotificationCount(user: "alice") == 1)
            #expect(try store.secret() == [42])
            #expect(try store.integrityCheck())
            // Sequences keep counting after a reconnect.
            #expect(try store.appendEvent(user: "alice", payload: [], now: 10) == Int64(2 + round))
            store.close()
        }
    }

    @Test("Two nodes starting at once on an empty database migrate it once and agree on one secret")
    func concurrentStart() throws {
        let url = try PostgresCluster.newDatabase()
        let secrets = try runConcurrently((0..<3).map { _ in
            { @Sendable () throws -> [UInt8] in
                let store = try PostgresStore(url: url)
                defer { store.close() }
                return try store.ensureSecret()
            }
        })
        #expect(Set(secrets).count == 1)
        let store = try PostgresStore(url: url)
        #expect(try store.connection.scalar("SELECT count(*) FROM herald_schema") == 1)
    }

    @Test("A second connection (like `herald-server token`) can write while the first is open")
    func secondConnection() throws {
        let url = try PostgresCluster.newDatabase()
        let server = try PostgresStore(url: url)
        try server.upsertUser(id: "alice", name: "Alice")
        let token = try PostgresStore(url: url)
        try token.upsertUser(id: "bob", name: "Bob")
        #expect(try server.user(id: "bob")?.name == "Bob")
        #expect(try token.ensureSecret() == server.ensureSecret())
        token.close()
        #expect(try server.findOrCreateDirect(between: "alice", and: "bob", now: 1).created)
    }

    @Test("A writer waiting for a row another connection holds fails with .busy after the lock timeout")
    func busy() throws {
        let url = try PostgresCluster.newDatabase()
        let holder = try PostgresStore(url: url)
        let waiter = try PostgresStore(url: url, lockTimeoutMilliseconds: 50)
        try holder.upsertUser(id: "alice", name: "Alice")
        try holder.transaction {
            // PostgreSQL locks rows, not the database: the waiter must want the same row.
            try holder.upsertUser(id: "alice", name: "Alice 2")
            do {
                try waiter.upsertUser(id: "alice", name: "Alice 3")
                Issue.record("wrote a row another connection held locked")
            } catch let error as StoreError {
                #expect(error.kind == .busy)
            }
            // Other rows are free.
            try waiter.upsertUser(id: "bob", name: "Bob")
        }
        try waiter.upsertUser(id: "alice", name: "Alice 3")
        #expect(try holder.user(id: "alice")?.name == "Alice 3")
    }

    @Test("A read-only store serves reads and fails writes with .readOnly")
    func readOnly() throws {
        let (url, writer) = try storeWithUsers()
        let c = try writer.findOrCreateDirect(between: "alice", and: "bob", now: 1).conversation
        _ = try send(2, from: "bob", in: c.id, store: writer)
        writer.close()

        let reader = try PostgresStore(url: url, readOnly: true)
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

    @Test("A read-only store on an unmigrated database, or a missing database, fails with a StoreError")
    func unusableDatabases() throws {
        let url = try PostgresCluster.newDatabase()
        do {
            _ = try PostgresStore(url: url, readOnly: true)
            Issue.record("opened an unmigrated database read-only")
        } catch let error as StoreError {
            #expect(error.kind == .readOnly)
        }
        do {
            _ = try PostgresStore(url: url + "_missing")
            Issue.record("connected to a database that does not exist")
        } catch let error as StoreError {
            #expect(error.kind == .io)
        }
    }

    @Test("Group commit: 500 inserts in one transaction commit together, visible to another connection only after")
    func groupCommit() throws {
        let (url, store) = try storeWithUsers()
        let c = try store.findOrCreateDirect(between: "alice", and: "bob", now: 1).conversation
        let other = try PostgresStore(url: url)
        let sent = try store.transaction {
            let sent = try send(500, from: "alice", in: c.id, store: store)
            #expect(try other.unreadCount(user: "bob", conversation: c.id) == 0)
            return sent
        }
        #expect(sent.count == 500)
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
            // A nested transaction whose statement fails on the server (unique key) fails as a whole.
            #expect(throws: StoreError.self) {
                try store.transaction { try store.insertAPIKey(APIKeyRecord(id: "k", name: "a", hash: [1], createdAt: 1)) }
                try store.transaction { try store.insertAPIKey(APIKeyRecord(id: "k", name: "b", hash: [2], createdAt: 2)) }
            }
            _ = try send(1, from: "bob", in: c.id, store: store)
        }
        #expect(try store.history(conversation: c.id, before: nil, limit: 10).count == 2)
        #expect(try store.apiKey(id: "k")?.name == "a")
    }

    @Test("A statement that fails outside any savepoint makes the commit throw: nothing is acknowledged that was not stored")
    func abortedTransactionIsNotCommitted() throws {
        let (_, store) = try storeWithUsers()
        let c = try store.findOrCreateDirect(between: "alice", and: "bob", now: 1).conversation
        try store.insertAPIKey(APIKeyRecord(id: "k", name: "a", hash: [1], createdAt: 1))
        do {
            try store.transaction {
                _ = try send(1, from: "alice", in: c.id, store: store)
                // The body swallows the failure; PostgreSQL has aborted the transaction nonetheless.
                _ = try? store.insertAPIKey(APIKeyRecord(id: "k", name: "again", hash: [2], createdAt: 2))
            }
            Issue.record("a transaction PostgreSQL rolled back was reported as committed")
        } catch is StoreError {}
        #expect(try store.history(conversation: c.id, before: nil, limit: 10).isEmpty)
        #expect(try store.appendEvent(user: "bob", payload: [1], now: 3) == 1)
    }

    @Test("Server errors map to StoreError kinds by SQLSTATE, and the store stays usable")
    func errorKinds() throws {
        let (_, store) = try storeWithUsers()
        let cases: [(String, StoreError.Kind)] = [
            ("disk_full", .full), ("deadlock_detected", .busy), ("serialization_failure", .busy), ("lock_not_available", .busy),
            ("read_only_sql_transaction", .readOnly), ("unique_violation", .constraint), ("foreign_key_violation", .constraint),
            ("data_corrupted", .corrupt), ("io_error", .io), ("raise_exception", .other),
        ]
        for (condition, kind) in cases {
            do {
                _ = try store.transaction {
                    try store.connection.executeScript("DO $$ BEGIN RAISE EXCEPTION 'simulated' USING ERRCODE = '\(condition)'; END $$")
                }
                Issue.record("\(condition) did not fail")
            } catch let error as StoreError {
                #expect(error.kind == kind, "\(condition): \(error)")
            }
        }
        try store.upsertUser(id: "alice", name: "Still works")
        #expect(try store.user(id: "alice")?.name == "Still works")
    }

    @Test("A lost connection fails the call in flight, then the store reconnects; a transaction in flight commits nothing")
    func reconnect() throws {
        let (url, store) = try storeWithUsers()
        let cluster = try PostgresCluster.shared()
        let c = try store.findOrCreateDirect(between: "alice", and: "bob", now: 1).conversation
        try cluster.terminateSessions(database: url)
        // The first call finds the connection dead; the next one reconnects (prepared statements are redone).
        if (try? store.user(id: "alice")) == nil {
            #expect(try store.user(id: "alice")?.name == "Alice")
        }
        do {
            try store.transaction {
                _ = try send(1, from: "alice", in: c.id, store: store)
                try cluster.terminateSessions(database: url)
                _ = try send(1, from: "alice", in: c.id, store: store)
            }
            Issue.record("a transaction whose connection died was reported as committed")
        } catch let error as StoreError {
            #expect(error.kind == .io)
        }
        _ = try? store.latestSeq(user: "alice")
        #expect(try store.history(conversation: c.id, before: nil, limit: 10).isEmpty)
        #expect(try send(1, from: "alice", in: c.id, store: store).count == 1)
    }

    @Test("Strict ids: prefix plus a canonical positive decimal")
    func recordIDs() {
        #expect(PGRecordID.parse(PGRecordID.message, "m1") == 1)
        #expect(PGRecordID.parse(PGRecordID.message, "m9223372036854775807") == Int64.max)
        for bad in ["m", "m0", "m01", "m-1", "m+1", "c1", "m1x", " m1", "m9223372036854775808", "M1"] {
            #expect(PGRecordID.parse(PGRecordID.message, bad) == nil, "\(bad)")
        }
        #expect(PGRecordID.format(PGRecordID.notification, 42) == "n42")
    }
}
