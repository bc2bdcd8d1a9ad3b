extension Schema {
    /// The per-user daily storage quota: the bytes of message content each user stored on each UTC day (days since the
    /// epoch), charged by every send and edit. Rows of past days are pruned with the stream.
    static let storageUsageMigration = """
        CREATE TABLE storage_usage (
            user_id TEXT NOT NULL,
            day INTEGER NOT NULL,
            bytes INTEGER NOT NULL,
            PRIMARY KEY (user_id, day)
        ) WITHOUT ROWID;
        """
}
