extension Schema {
    /// G1-G4: groups change after they are made. `created_by` is who made a group (G3: only they remove others; NULL
    /// for groups made before it was kept and for direct conversations). `joined_after` is the newest message id of the
    /// conversation when the participant joined (0: a first member): what came before counts as read for them (G2), so
    /// unread(u, c) = message_count - sent_count - read_count stays exact for a member added later.
    static let groupChangesMigration = """
        ALTER TABLE conversations ADD COLUMN created_by TEXT;
        ALTER TABLE participants ADD COLUMN joined_after INTEGER NOT NULL DEFAULT 0;
        """
}
