import Foundation
@testable import HeraldStore
@testable import HeraldStorePostgres
import HeraldTestSupport
import Testing

/// The store implementations every shared store test runs against: `@Test(..., arguments: StoreBackend.allCases)`.
///
/// `.sqlite` is a database file in a temporary directory; `.postgres` is a fresh database on the throwaway
/// ``PostgresCluster``. Backend-specific behaviour (SQLite's file modes and busy timeout, PostgreSQL's row locks,
/// reconnects and LISTEN) lives in the `SQLite…`/`Postgres…` files instead.
enum StoreBackend: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case sqlite
    case postgres

    var testDescription: String {
        switch self {
        case .sqlite: "SQLite"
        case .postgres: "PostgreSQL"
        }
    }

    /// A fresh, empty database of this backend.
    ///
    /// For `.postgres` without the PostgreSQL server binaries this cancels (skips) the calling test case with
    /// ``PostgresCluster/skipReason`` (also recorded as a warning, which does not fail the run); any other failure
    /// to start the cluster fails the test.
    func makeDatabase() throws -> TestDatabase {
        switch self {
        case .sqlite:
            return .sqlite(try TemporaryDatabase())
        case .postgres:
            guard PostgresCluster.binariesAvailable else {
                // The console reporter lists a cancelled case as passed and drops the comment, so say why as a warning too.
                Issue.record(PostgresCluster.skipReason, severity: .warning)
                try Test.cancel(PostgresCluster.skipReason)
            }
            return .postgres(url: try PostgresCluster.newDatabase())
        }
    }
}

/// One fresh database of some backend. Every ``open(readOnly:)`` is a new connection to it, like another
/// process (`herald-server token`) or another node.
enum TestDatabase {
    case sqlite(TemporaryDatabase)
    case postgres(url: String)

    /// Opens (and on first use migrates) a store on this database.
    func open(readOnly: Bool = false) throws -> any StoreUnderTest {
        switch self {
        case .sqlite(let file): try file.open(readOnly: readOnly)
        case .postgres(let url): try PostgresStore(url: url, readOnly: readOnly)
        }
    }
}

/// What the shared tests need of a store: the sync store API, API keys, and the schema version bookkeeping.
protocol StoreUnderTest: SyncStore, APIKeyStore, PushQueueStore {
    /// The schema version the database records (after migrations ran).
    func storedSchemaVersion() throws -> Int64?
    /// The schema version this build migrates to.
    var currentSchemaVersion: Int64 { get }
}

extension SQLiteStore: StoreUnderTest {
    func storedSchemaVersion() throws -> Int64? { try connection.scalar("PRAGMA user_version") }
    var currentSchemaVersion: Int64 { Int64(Self.schemaVersion) }
}

extension PostgresStore: StoreUnderTest {
    func storedSchemaVersion() throws -> Int64? { try schemaVersionStored() }
    var currentSchemaVersion: Int64 { Int64(Self.schemaVersion) }
}

/// A store with users alice, bob and carol on a fresh database of `backend`, plus that database.
func storeWithUsers(_ backend: StoreBackend) throws -> (TestDatabase, any StoreUnderTest) {
    let database = try backend.makeDatabase()
    return (database, try withUsers(database.open()))
}

/// Adds users alice, bob and carol to `store` and returns it.
func withUsers<Store: SyncStore>(_ store: Store) throws -> Store {
    for (id, name) in [("alice", "Alice"), ("bob", "Bob"), ("carol", "Carol")] {
        try store.upsertUser(id: id, name: name)
    }
    return store
}

/// Inserts `count` text messages from `sender` and returns them in order.
func send(_ count: Int, from sender: String, in conversation: String, store: any SyncStore, startingAt now: Int64 = 1_000) throws -> [MessageRecord] {
    try (0..<count).map { index in
        try store.insertMessage(
            conversation: conversation, sender: sender, clientMessageId: "\(sender)-\(UUID().uuidString)", kind: .text,
            text: "message \(index)", imageURL: nil, now: now + Int64(index)
        ).message
    }
}
