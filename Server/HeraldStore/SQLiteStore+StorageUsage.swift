extension SQLiteStore {
    // MARK: - Storage quota

    public func chargeStorage(user: String, day: Int64, bytes: Int64, limit: Int64) throws -> Bool {
        guard bytes <= limit else { return false }
        return try connection.execute(
            """
            INSERT INTO storage_usage (user_id, day, bytes) VALUES (?, ?, ?)
            ON CONFLICT (user_id, day) DO UPDATE SET bytes = storage_usage.bytes + excluded.bytes
            WHERE storage_usage.bytes + excluded.bytes <= ?
            """,
            .text(user), .int(day), .int(bytes), .int(limit)) > 0
    }

    @discardableResult
    public func pruneStorageUsage(before day: Int64) throws -> Int {
        try connection.execute("DELETE FROM storage_usage WHERE day < ?", .int(day))
    }
}
