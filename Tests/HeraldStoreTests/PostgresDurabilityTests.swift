import CLibPQ
import HeraldStore
@testable import HeraldStorePostgres
import HeraldTestSupport
import Testing

@Suite("PostgreSQL: concurrent start, row locks, server errors and reconnects", .enabled(if: PostgresCluster.binariesAvailable, PostgresCluster.skipReason))
struct PostgresDurabilityTests {
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

    @Test("A write transaction that times out waiting for the write lock leaves no failed transaction on its session: the next one commits")
    func writeLockTimeoutLeavesNothingOpen() throws {
        let (url, holder) = try postgresStoreWithUsers()
        let waiter = try PostgresStore(url: url, lockTimeoutMilliseconds: 50)
        try holder.transaction {
            _ = try holder.appendEvent(user: "alice", payload: [1], now: 1)
            do {
                _ = try waiter.appendEvent(user: "bob", payload: [2], now: 2)
                Issue.record("wrote while another store held the write lock")
            } catch let error as StoreError {
                #expect(error.kind == .busy)
            }
        }
        #expect(try waiter.appendEvent(user: "bob", payload: [2], now: 2) == 1)
        #expect(try waiter.appendEvent(user: "alice", payload: [3], now: 3) == 2)
        #expect(try holder.events(user: "alice", after: 0, limit: 10).map(\.payload) == [[1], [3]])
    }

    @Test("A session left in pipeline mode (a pipeline that failed half-sent) is replaced, not used: the next write commits")
    func sessionLeftInPipelineModeIsReplaced() throws {
        let (_, store) = try postgresStoreWithUsers()
        #expect(try store.appendEvent(user: "alice", payload: [1], now: 1) == 1)
        let wedged = try #require(store.connection.handle)
        let wedgedSession = store.connection.backendPID
        #expect(PQenterPipelineMode(wedged) == 1)
        #expect(try store.appendEvent(user: "alice", payload: [2], now: 2) == 2)
        #expect(store.connection.backendPID != wedgedSession, "a new session")
        #expect(try store.events(user: "alice", after: 0, limit: 10).map(\.payload) == [[1], [2]])
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

    @Test("A statement that fails outside any savepoint makes the commit throw: nothing is acknowledged that was not stored")
    func abortedTransactionIsNotCommitted() throws {
        let (_, store) = try postgresStoreWithUsers()
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
        let (_, store) = try postgresStoreWithUsers()
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
        let (url, store) = try postgresStoreWithUsers()
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
}
