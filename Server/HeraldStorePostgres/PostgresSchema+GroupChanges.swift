extension PostgresSchema {
    /// G1-G4, as the SQLite schema keeps them: who made a group (`created_by`, NULL for groups made before it was kept)
    /// and, per participant, the newest message id of the conversation when they joined (`joined_after`, 0 for a first
    /// member): what came before counts as read for them (G2).
    static let groupChangesMigration = """
        ALTER TABLE conversations ADD COLUMN created_by text COLLATE "C";
        ALTER TABLE participants ADD COLUMN joined_after bigint NOT NULL DEFAULT 0;
        """
}
