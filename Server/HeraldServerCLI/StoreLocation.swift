import Foundation
import HeraldServer
import HeraldStore
import HeraldStorePostgres
import Logging

/// Where the server's data lives, as `--db`/`--store` (or HERALD_DB/HERALD_STORE) say. The CLI is the one place that
/// picks a store implementation; the server library works with whichever store it is handed.
enum StoreLocation {
    /// A SQLite database file: one node.
    case file(String)
    /// A PostgreSQL database (a libpq connection URL) that several nodes may share.
    case postgres(url: String)

    /// The shared store when a URL is given, else the file.
    init(dbPath: String, storeURL: String?) {
        self = storeURL.map { .postgres(url: $0) } ?? .file(dbPath)
    }

    /// Opens the store, migrating it when needed (a SQLite file that does not exist is created: callers check first).
    private func open() throws -> any SyncStore & APIKeyStore {
        switch self {
        case .file(let path): try SQLiteStore(path: path)
        case .postgres(let url): try PostgresStore(url: url)
        }
    }

    /// Opens a store that must already exist, for `token` and `apikey`: a mistyped path or another directory must not
    /// get a new database whose tokens and keys no running server knows. A PostgreSQL store is the operator's to create.
    ///
    /// - Throws: ``MissingDatabaseError`` when the SQLite file does not exist.
    func openExisting() throws -> any SyncStore & APIKeyStore {
        if case .file(let path) = self, !FileManager.default.fileExists(atPath: path) { throw MissingDatabaseError(path: path) }
        return try open()
    }

    /// A connection of the push delivery workers to the store's push queue (one per worker).
    func openPushQueue() throws -> any PushQueueStore {
        switch self {
        case .file(let path): try SQLiteStore(path: path)
        case .postgres(let url): try PostgresStore(url: url)
        }
    }

    /// Opens the store `serve` runs on. A SQLite file left readable beyond its owner is narrowed on open, which is
    /// logged; a PostgreSQL store comes with its LISTEN connection, through which this node hears of the others.
    func openForServing(logger: Logger) throws -> SyncStorage {
        switch self {
        case .file(let path):
            let store = try SQLiteStore(path: path, checkpointsInBackground: true)
            for change in store.fileModeChanges {
                logger.warning("database file was readable beyond its owner; narrowed", metadata: ["file": "\(change.path)", "change": "\(change)"])
            }
            return SyncStorage(store: store)
        case .postgres(let url):
            return SyncStorage(store: try PostgresStore(url: url)) { node, onSignal in
                PostgresStreamListener(url: url, node: node, onSignal: onSignal)
            }
        }
    }
}
