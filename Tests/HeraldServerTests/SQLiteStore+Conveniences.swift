import HeraldStore
@testable import HeraldServer

// The server library never opens a database itself (the CLI hands it a store); tests that want a token or an API key
// in a SQLite file open one here, as `herald-server token` and `apikey create` do with `--db`.

extension TokenIssuer {
    /// ``issue(opening:user:name:secret:ttlSeconds:)`` on the SQLite database at `dbPath` (created when missing).
    static func issue(dbPath: String, user: String, name: String?, secret: String?, ttlSeconds: Int) throws -> String {
        try issue(opening: { try SQLiteStore(path: dbPath) }, user: user, name: name, secret: secret, ttlSeconds: ttlSeconds)
    }
}

extension APIKey {
    /// ``create(in:name:scope:expiresInSeconds:)`` in the SQLite database at `dbPath` (created when missing).
    static func create(dbPath: String, name: String, scope: APIKeyScope = .full, expiresInSeconds: Int64? = nil) throws -> String {
        let store = try SQLiteStore(path: dbPath)
        defer { store.close() }
        return try create(in: store, name: name, scope: scope, expiresInSeconds: expiresInSeconds)
    }

    /// ``create(in:name:scope:createdAt:expiresAt:)`` in the SQLite database at `dbPath` (created when missing).
    static func create(dbPath: String, name: String, scope: APIKeyScope, createdAt: Int64, expiresAt: Int64?) throws -> String {
        let store = try SQLiteStore(path: dbPath)
        defer { store.close() }
        return try create(in: store, name: name, scope: scope, createdAt: createdAt, expiresAt: expiresAt)
    }
}

extension SQLiteStore {
    /// Creates the database at `path` as `serve` does on its first start (the one command that creates a database),
    /// for tests that run `herald-server token` or `apikey` before any server ran on it.
    static func createDatabase(at path: String) throws {
        try SQLiteStore(path: path).close()
    }
}
