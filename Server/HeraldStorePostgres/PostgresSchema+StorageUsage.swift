extension PostgresSchema {
    /// The per-user daily storage quota, as in the SQLite schema (Schema+StorageUsage.swift).
    static let storageUsageMigration = """
        CREATE TABLE storage_usage (
            user_id text COLLATE "C" NOT NULL,
            day bigint NOT NULL,
            bytes bigint NOT NULL,
            PRIMARY KEY (user_id, day)
        );
        """
}
