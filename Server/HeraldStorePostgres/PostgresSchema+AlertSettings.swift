extension PostgresSchema {
    /// Alert settings (N1, N3, N4), as the SQLite schema keeps them: a row per (user, conversation) that is muted
    /// (`muted_until`, ms; the largest bigint for "until unmuted") or marked unread, a row per user with quiet hours on,
    /// and the flags of a queued push's alert (N2, N3).
    static let alertSettingsMigration = """
        CREATE TABLE conversation_settings (
            user_id text COLLATE "C" NOT NULL,
            conversation_id bigint NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
            muted_until bigint,
            marked_unread boolean NOT NULL DEFAULT false,
            PRIMARY KEY (user_id, conversation_id)
        );
        CREATE TABLE user_settings (
            user_id text COLLATE "C" PRIMARY KEY,
            quiet boolean NOT NULL DEFAULT false
        );
        ALTER TABLE push_deliveries ADD COLUMN quiet boolean NOT NULL DEFAULT false;
        ALTER TABLE push_deliveries ADD COLUMN mentioned boolean NOT NULL DEFAULT false;
        """
}
