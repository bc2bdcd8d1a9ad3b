import HeraldStoreProtocol

extension SQLiteStore: APIKeyStore {
    private static let apiKeyColumns = "id, name, hash, created_at, scope, expires_at, revoked_at"

    private static func apiKeyRecord(_ row: SQLiteRow) throws(StoreError) -> APIKeyRecord {
        let id = row.text(0)
        return APIKeyRecord(
            id: id, name: row.text(1), hash: row.blob(2), createdAt: row.int(3), scope: try APIKeyRecord.scope(stored: row.text(4), id: id),
            expiresAt: row.optionalInt(5), revokedAt: row.optionalInt(6))
    }

    public func insertAPIKey(_ key: APIKeyRecord) throws {
        try connection.execute(
            "INSERT INTO api_keys (id, name, hash, created_at, scope, expires_at, revoked_at) VALUES (?, ?, ?, ?, ?, ?, ?)", .text(key.id),
            .text(key.name), .blob(key.hash), .int(key.createdAt), .text(key.scope.rawValue), key.expiresAt.map(SQLiteValue.int) ?? .null,
            key.revokedAt.map(SQLiteValue.int) ?? .null)
    }

    public func apiKey(id: String) throws -> APIKeyRecord? {
        try connection.queryFirst("SELECT \(Self.apiKeyColumns) FROM api_keys WHERE id = ?", .text(id), row: Self.apiKeyRecord)
    }

    public func apiKeys() throws -> [APIKeyRecord] {
        try connection.query("SELECT \(Self.apiKeyColumns) FROM api_keys ORDER BY created_at, id", row: Self.apiKeyRecord)
    }

    public func revokeAPIKey(id: String, at: Int64) throws -> APIKeyRecord? {
        try connection.execute("UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL", .int(at), .text(id))
        return try apiKey(id: id)
    }
}
