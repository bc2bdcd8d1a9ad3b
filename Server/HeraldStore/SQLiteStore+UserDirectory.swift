import HeraldStoreProtocol

extension SQLiteStore {
    // MARK: - User directory

    public func users(excluding caller: String, after: String?, prefix: String?, limit: Int) throws -> [UserRecord] {
        // One range scan of the primary key: '' sorts before every id, so a first page needs no second query. SQLite's
        // LIKE ignores ASCII case; the pattern is lowered anyway (see UserPrefixPattern).
        try connection.query(
            """
            SELECT id, name FROM users
            WHERE id > ?1 AND id <> ?2 AND (id LIKE ?3 ESCAPE '\\' OR name LIKE ?3 ESCAPE '\\')
            ORDER BY id LIMIT ?4
            """,
            .text(after ?? ""), .text(caller), .text(UserPrefixPattern.like(prefix)), .int(Int64(max(limit, 0)))
        ) { row in
            UserRecord(id: row.text(0), name: row.text(1))
        }
    }
}
