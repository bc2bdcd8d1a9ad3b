extension PostgresSchema {
    /// E2: when each user was last seen (ms since the epoch; NULL: never), as the SQLite schema keeps it.
    static let lastSeenMigration = """
        ALTER TABLE users ADD COLUMN last_seen_at bigint;
        """
}
