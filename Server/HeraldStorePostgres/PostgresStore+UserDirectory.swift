import HeraldStore

extension PostgresStore {
    // MARK: - User directory

    public func users(excluding caller: String, after: String?, prefix: String?, limit: Int) throws -> [UserRecord] {
        // Ids are COLLATE "C": byte order, as in SQLite. `lower` under "C" lowers ASCII letters only, the same folding as
        // SQLite's LIKE, so both stores match the same names (see UserPrefixPattern).
        try connection.query(
            """
            SELECT id, name FROM users
            WHERE id > $1 AND id <> $2 AND (lower(id) LIKE $3 ESCAPE '\\' OR lower(name COLLATE "C") LIKE $3 ESCAPE '\\')
            ORDER BY id LIMIT $4
            """,
            .text(after ?? ""), .text(caller), .text(UserPrefixPattern.like(prefix)), .int(Int64(max(limit, 0)))
        ) { row in
            UserRecord(id: row.text(0), name: row.text(1))
        }
    }
}
