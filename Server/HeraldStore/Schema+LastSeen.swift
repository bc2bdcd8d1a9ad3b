extension Schema {
    /// E2: when each user was last seen (ms since the epoch; NULL: never), so an offline contact still shows it after
    /// a restart.
    static let lastSeenMigration = """
        ALTER TABLE users ADD COLUMN last_seen_at INTEGER;
        """
}
