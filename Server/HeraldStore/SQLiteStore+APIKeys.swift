/// A backend API key as stored: its public id, a label, and the SHA-256 of the whole key (never the key).
public struct APIKeyRecord: Sendable, Equatable {
    /// The key's public part (e.g. "3f9a…"), unique.
    public var id: String
    /// A label chosen at creation (`--name`).
    public var name: String
    /// SHA-256 of the full key string.
    public var hash: [UInt8]
    /// Creation time, ms since the epoch.
    public var createdAt: Int64

    public init(id: String, name: String, hash: [UInt8], createdAt: Int64) {
        self.id = id
        self.name = name
        self.hash = hash
        self.createdAt = createdAt
    }
}

/// Storage of backend API keys (hashed). Kept apart from ``SyncStore``: only the API and the CLI use it.
public protocol APIKeyStore: AnyObject {
    /// Stores a new key. Throws `.constraint` when the id exists.
    func insertAPIKey(_ key: APIKeyRecord) throws
    /// The key with this public id, or nil.
    func apiKey(id: String) throws -> APIKeyRecord?
}

extension SQLiteStore: APIKeyStore {
    public func insertAPIKey(_ key: APIKeyRecord) throws {
        try connection.execute(
            "INSERT INTO api_keys (id, name, hash, created_at) VALUES (?, ?, ?, ?)", .text(key.id), .text(key.name), .blob(key.hash),
            .int(key.createdAt))
    }

    public func apiKey(id: String) throws -> APIKeyRecord? {
        try connection.queryFirst("SELECT id, name, hash, created_at FROM api_keys WHERE id = ?", .text(id)) { row in
            APIKeyRecord(id: row.text(0), name: row.text(1), hash: row.blob(2), createdAt: row.int(3))
        }
    }
}
