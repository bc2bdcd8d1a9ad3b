import Foundation
@testable import HeraldStore
import Testing

@Suite("SQLite: busy timeout, file modes and a full disk")
struct SQLiteDurabilityTests {
    /// Two connections to one new database: one to hold the write lock, one to wait for it. The database (its
    /// directory) lives as long as the pair.
    struct LockPair {
        let database: TemporaryDatabase
        let holder: SQLiteStore
        let waiter: SQLiteStore

        init(busyTimeoutMilliseconds: Int32) throws {
            database = try TemporaryDatabase()
            holder = try database.open()
            waiter = try SQLiteStore(path: database.path, busyTimeoutMilliseconds: busyTimeoutMilliseconds)
        }
    }

    @Test("A second writer waits for the busy timeout and then fails with .busy, not a crash")
    func busy() throws {
        let pair = try LockPair(busyTimeoutMilliseconds: 50)
        let (holder, waiter) = (pair.holder, pair.waiter)
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

    @Test("A waiting writer keeps retrying for the whole busy timeout and writes as soon as the lock is let go")
    func waitsThenWrites() throws {
        let pair = try LockPair(busyTimeoutMilliseconds: 10_000)
        let (holder, waiter) = (pair.holder, pair.waiter)
        let locked = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let holding = Thread {
            try? holder.transaction {
                try holder.upsertUser(id: "alice", name: "Alice")
                locked.signal()
                _ = release.wait(timeout: .now() + 10)
            }
        }
        holding.start()
        locked.wait()
        let started = Date()
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.2) { release.signal() }
        try waiter.upsertUser(id: "bob", name: "Bob")
        // It waited for the holder (not a failure after the first try) and got in once the lock was free.
        #expect(Date().timeIntervalSince(started) >= 0.19)
        #expect(try waiter.user(id: "alice") != nil)
        #expect(try waiter.user(id: "bob") != nil)
    }

    @Test("The busy timeout is a lower bound: a writer gives up only after waiting all of it")
    func waitsTheWholeTimeout() throws {
        let pair = try LockPair(busyTimeoutMilliseconds: 120)
        let (holder, waiter) = (pair.holder, pair.waiter)
        try holder.transaction {
            try holder.upsertUser(id: "alice", name: "Alice")
            let started = Date()
            #expect(throws: StoreError.self) { try waiter.upsertUser(id: "bob", name: "Bob") }
            #expect(Date().timeIntervalSince(started) >= 0.119)
        }
    }

    @Test("Opening a missing file read-only fails with a StoreError")
    func missingReadOnly() throws {
        let database = try TemporaryDatabase()
        #expect(throws: StoreError.self) { try database.open(readOnly: true) }
    }

    @Test("A database file with a negative schema version is refused with a StoreError, not a trap")
    func negativeSchemaVersion() throws {
        let database = try TemporaryDatabase()
        let store = try database.open()
        try store.connection.executeScript("PRAGMA user_version = -1")
        store.close()
        #expect(throws: StoreError.self) { try database.open() }
    }

    @Test("R3: stream sequence numbers at the ends of Int64 in the file fail with a StoreError or resync, never trap")
    func extremeSequences() throws {
        let (_, store) = try sqliteStoreWithUsers()
        // A head at Int64.max: the next seq does not exist.
        try store.connection.execute("INSERT INTO event_heads (user_id, last_seq) VALUES ('alice', ?)", .int(.max))
        #expect(throws: StoreError.self) { try store.appendEvent(user: "alice", payload: [1], now: 1) }
        #expect(try store.oldestRetainedSeq(user: "alice") == .max)
        #expect(try store.replay(user: "alice", after: 0, limit: 10) == .resync)
        // A stream row at Int64.min: no cursor can resume from before it.
        _ = try store.appendEvent(user: "bob", payload: [2], now: 1)
        try store.connection.execute("UPDATE stream_runs SET first_seq = ? WHERE user_id = 'bob'", .int(.min))
        #expect(try store.replay(user: "bob", after: 0, limit: 10) == .resync)
    }

    @Test("A full database fails the write with .full and leaves the store usable")
    func full() throws {
        let (_, store) = try sqliteStoreWithUsers()
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

    @Test("A transaction SQLite rolled back by itself (I/O, full disk) fails as a whole: later requests of the batch store nothing on their own")
    func transactionRolledBackBySQLite() throws {
        struct IOFailure: Error {}
        let (database, store) = try sqliteStoreWithUsers()
        let c = try store.findOrCreateDirect(between: "alice", and: "bob", now: 1).conversation
        var requestFailures: [String] = []
        #expect(throws: StoreError.self) {
            try store.transaction {
                _ = try store.transaction {  // request 1 of a batch: stored in the batch's transaction
                    try store.insertMessage(conversation: c.id, sender: "alice", clientMessageId: "a", kind: .text, text: "one", imageURL: nil, now: 2)
                }
                // Request 2 fails the way SQLITE_IOERR / SQLITE_FULL can: SQLite has rolled the whole transaction back.
                do {
                    try store.transaction {
                        try store.connection.executeScript("ROLLBACK")
                        throw IOFailure()
                    }
                } catch { requestFailures.append("\(type(of: error))") }
                // Request 3 must not run in a transaction of its own (SAVEPOINT outside BEGIN starts one, RELEASE commits it).
                do {
                    _ = try store.transaction {
                        try store.insertMessage(conversation: c.id, sender: "alice", clientMessageId: "c", kind: .text, text: "three", imageURL: nil, now: 3)
                    }
                } catch { requestFailures.append("\(type(of: error))") }
            }
        }
        #expect(requestFailures == ["IOFailure", "StoreError"])
        // Nothing of the batch is in the file, and the store works on (the caller redoes the batch).
        let reopened = try database.open()
        #expect(try reopened.history(conversation: c.id, before: nil, limit: 10).isEmpty)
        #expect(try store.history(conversation: c.id, before: nil, limit: 10).isEmpty)
        _ = try store.transaction {
            try store.insertMessage(conversation: c.id, sender: "alice", clientMessageId: "d", kind: .text, text: "again", imageURL: nil, now: 4)
        }
        #expect(try reopened.history(conversation: c.id, before: nil, limit: 10).map(\.text) == ["again"])
    }
}
