extension Schema {
    /// Alert settings (N1, N3, N4): a row per (user, conversation) that is muted (`muted_until`, ms; the largest
    /// integer for "until unmuted") or marked unread, and a row per user with quiet hours on. A row with neither
    /// setting is deleted, so the tables hold only what is set. Push deliveries gain their alert's flags (N2, N3), so
    /// a provider shows a quiet push without sound and a mention as one.
    static let alertSettingsMigration = """
        CREATE TABLE conversation_settings (
            user_id TEXT NOT NULL,
            conversation_id INTEGER NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
            muted_until INTEGER,
            marked_unread INTEGER NOT NULL DEFAULT 0,
            PRIMARY KEY (user_id, conversation_id)
        ) WITHOUT ROWID;
        CREATE TABLE user_settings (
            user_id TEXT PRIMARY KEY,
            quiet INTEGER NOT NULL DEFAULT 0
        ) WITHOUT ROWID;
        ALTER TABLE push_deliveries ADD COLUMN quiet INTEGER NOT NULL DEFAULT 0;
        ALTER TABLE push_deliveries ADD COLUMN mentioned INTEGER NOT NULL DEFAULT 0;
        """
}
