/// The schema as an ordered list of migrations; `PRAGMA user_version` is the number applied.
///
/// Never edit a shipped migration: append a new one. Each runs in its own IMMEDIATE transaction
/// that re-reads user_version first, so two processes opening an old file at once migrate it once.
enum Schema {
    static let migrations: [String] = [
        // 1: initial schema.
        """
        CREATE TABLE meta (
            key TEXT PRIMARY KEY,
            value BLOB NOT NULL
        ) WITHOUT ROWID;

        CREATE TABLE users (
            id TEXT PRIMARY KEY,
            name TEXT NOT NULL
        ) WITHOUT ROWID;

        -- Direct conversations keep their sorted pair in (direct_low, direct_high); the UNIQUE makes
        -- the pair unique. Groups leave both NULL, and NULLs never collide in a UNIQUE index.
        CREATE TABLE conversations (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            kind INTEGER NOT NULL,
            title TEXT,
            direct_low TEXT,
            direct_high TEXT,
            created_at INTEGER NOT NULL,
            last_activity INTEGER NOT NULL,
            UNIQUE (direct_low, direct_high)
        );
        CREATE INDEX conversations_activity ON conversations (last_activity DESC, id DESC);

        CREATE TABLE participants (
            conversation_id INTEGER NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
            user_id TEXT NOT NULL REFERENCES users (id),
            PRIMARY KEY (conversation_id, user_id)
        ) WITHOUT ROWID;
        CREATE INDEX participants_by_user ON participants (user_id, conversation_id);

        -- AUTOINCREMENT: ids (and so storage order, R2) never go back, even after deletes.
        CREATE TABLE messages (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            conversation_id INTEGER NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
            sender_id TEXT NOT NULL REFERENCES users (id),
            client_message_id TEXT NOT NULL,
            kind INTEGER NOT NULL,
            text TEXT,
            image_url TEXT,
            created_at INTEGER NOT NULL,
            UNIQUE (sender_id, client_message_id)
        );
        CREATE INDEX messages_by_conversation ON messages (conversation_id, id);

        -- One row per (recipient, message) not yet read: written at insert for every participant but
        -- the sender, deleted when it becomes read. unread(c) is then an index range count (U1), and
        -- "became read now" is "the DELETE changed a row" (U3).
        CREATE TABLE unread (
            user_id TEXT NOT NULL,
            message_id INTEGER NOT NULL REFERENCES messages (id) ON DELETE CASCADE,
            conversation_id INTEGER NOT NULL,
            PRIMARY KEY (user_id, message_id)
        ) WITHOUT ROWID;
        CREATE INDEX unread_by_conversation ON unread (user_id, conversation_id);

        -- Read receipts (U6).
        CREATE TABLE receipts (
            message_id INTEGER NOT NULL REFERENCES messages (id) ON DELETE CASCADE,
            user_id TEXT NOT NULL,
            read_at INTEGER NOT NULL,
            PRIMARY KEY (message_id, user_id)
        ) WITHOUT ROWID;

        -- The head survives pruning, so sequences never restart or repeat (R3).
        CREATE TABLE event_heads (
            user_id TEXT PRIMARY KEY,
            last_seq INTEGER NOT NULL
        ) WITHOUT ROWID;

        CREATE TABLE events (
            user_id TEXT NOT NULL,
            seq INTEGER NOT NULL,
            created_at INTEGER NOT NULL,
            payload BLOB NOT NULL,
            PRIMARY KEY (user_id, seq)
        ) WITHOUT ROWID;
        CREATE INDEX events_by_time ON events (created_at);

        CREATE TABLE notifications (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            user_id TEXT NOT NULL REFERENCES users (id),
            kind TEXT NOT NULL,
            actor TEXT,
            text TEXT NOT NULL,
            url TEXT,
            created_at INTEGER NOT NULL,
            read INTEGER NOT NULL DEFAULT 0
        );
        CREATE INDEX notifications_by_user ON notifications (user_id, id);

        CREATE TABLE pushes (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            user_id TEXT NOT NULL,
            device TEXT NOT NULL,
            conversation_id INTEGER NOT NULL,
            message_id INTEGER NOT NULL,
            sender_id TEXT NOT NULL,
            preview TEXT NOT NULL,
            url TEXT NOT NULL,
            created_at INTEGER NOT NULL,
            withdrawn_at INTEGER
        );
        CREATE INDEX pushes_by_message ON pushes (message_id, user_id);
        CREATE INDEX pushes_by_user ON pushes (user_id, id);
        """,
        // 2: API keys of the backend HTTP API. Only a SHA-256 of each key is kept; `id` is the key's public
        // part, so a lookup never compares secrets in SQL.
        """
        CREATE TABLE api_keys (
            id TEXT PRIMARY KEY,
            name TEXT NOT NULL,
            hash BLOB NOT NULL,
            created_at INTEGER NOT NULL
        ) WITHOUT ROWID;
        """,
        // 3: each event body is stored once. A group message used to copy its event JSON into every recipient's
        // stream row (250 copies for a 250-user group); now the body goes into `event_bodies` once and each stream
        // row is (user, seq, body). Existing rows move over with one body each. `event_heads` is unchanged.
        """
        CREATE TABLE event_bodies (
            id INTEGER PRIMARY KEY,
            created_at INTEGER NOT NULL,
            payload BLOB NOT NULL
        );
        CREATE INDEX event_bodies_by_time ON event_bodies (created_at);

        CREATE TABLE stream_entries (
            user_id TEXT NOT NULL,
            seq INTEGER NOT NULL,
            body_id INTEGER NOT NULL,
            PRIMARY KEY (user_id, seq)
        ) WITHOUT ROWID;
        -- Pruning deletes entries by their body's age, then bodies no entry refers to.
        CREATE INDEX stream_entries_by_body ON stream_entries (body_id);

        INSERT INTO event_bodies (id, created_at, payload)
            SELECT row_number() OVER (ORDER BY user_id, seq), created_at, payload FROM events;
        INSERT INTO stream_entries (user_id, seq, body_id)
            SELECT user_id, seq, row_number() OVER (ORDER BY user_id, seq) FROM events;
        DROP TABLE events;
        """,
        // 4: nothing per recipient per message. A user's stream becomes runs (seqs and body ids that rise together,
        // see StreamRun): a batch of group messages extends each member's run instead of adding a row per message.
        // Unread counts become counters: unread(u, c) = c.message_count - p.sent_count - p.read_count, where a send
        // bumps the conversation's count and the sender's sent_count, and a first read bumps the reader's read_count
        // (its receipt row makes "first" exact, U3). Participants are fixed at creation, so every message of c counts.
        // Existing rows move over exactly: each stream row is a run of one, and read_count is derived from the unread
        // rows so every count is what it was. Bodies are pruned by id order now, so their time index goes.
        """
        CREATE TABLE stream_runs (
            user_id TEXT NOT NULL,
            first_seq INTEGER NOT NULL,
            first_body INTEGER NOT NULL,
            count INTEGER NOT NULL,
            PRIMARY KEY (user_id, first_seq)
        ) WITHOUT ROWID;
        INSERT INTO stream_runs (user_id, first_seq, first_body, count) SELECT user_id, seq, body_id, 1 FROM stream_entries;
        DROP TABLE stream_entries;
        DROP INDEX event_bodies_by_time;

        ALTER TABLE conversations ADD COLUMN message_count INTEGER NOT NULL DEFAULT 0;
        ALTER TABLE participants ADD COLUMN sent_count INTEGER NOT NULL DEFAULT 0;
        ALTER TABLE participants ADD COLUMN read_count INTEGER NOT NULL DEFAULT 0;
        UPDATE conversations SET message_count = (SELECT count(*) FROM messages m WHERE m.conversation_id = conversations.id);
        UPDATE participants SET sent_count = (
            SELECT count(*) FROM messages m WHERE m.conversation_id = participants.conversation_id AND m.sender_id = participants.user_id);
        UPDATE participants SET read_count =
            (SELECT c.message_count FROM conversations c WHERE c.id = participants.conversation_id) - sent_count
            - (SELECT count(*) FROM unread u WHERE u.user_id = participants.user_id AND u.conversation_id = participants.conversation_id);
        DROP TABLE unread;
        """,
        // 5: API keys get a scope, an expiry and a revocation time. Existing keys become `full` and never expire,
        // which is exactly what they could do before; `read` keys may only call GET endpoints.
        """
        ALTER TABLE api_keys ADD COLUMN scope TEXT NOT NULL DEFAULT 'full' CHECK (scope IN ('read', 'full'));
        ALTER TABLE api_keys ADD COLUMN expires_at INTEGER;
        ALTER TABLE api_keys ADD COLUMN revoked_at INTEGER;
        """,
        // 6: sign-outs. A row refuses the user's tokens issued before `issued_before` (seconds): every token when
        // `device` is '', else the tokens of that device. One row per (user, device); a later sign-out moves it on.
        """
        CREATE TABLE sign_outs (
            user_id TEXT NOT NULL,
            device TEXT NOT NULL,
            issued_before INTEGER NOT NULL,
            PRIMARY KEY (user_id, device)
        ) WITHOUT ROWID;
        """,
        // 7: push to devices without a connection. A target is where one device is alerted (its provider and address
        // there); a delivery is one push waiting for it, durable so a restart loses none. A target's rows go out in id
        // order, one at a time: the target row carries its queue's head (when the oldest row is due, and the lease of
        // the worker sending it), so a claim reads due targets, never the rows waiting behind a head. A bell alert
        // queued for a device is remembered, so reading the notification elsewhere can take it back (P5).
        """
        CREATE TABLE push_targets (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            user_id TEXT NOT NULL,
            device TEXT NOT NULL,
            provider TEXT NOT NULL CHECK (provider IN ('apns', 'fcm', 'webpush', 'webhook')),
            token TEXT NOT NULL,
            topic TEXT,
            sandbox INTEGER NOT NULL DEFAULT 0,
            p256dh TEXT,
            auth TEXT,
            updated_at INTEGER NOT NULL,
            queue_due_at INTEGER,
            queue_leased_until INTEGER,
            UNIQUE (user_id, device)
        );
        CREATE INDEX push_targets_due ON push_targets (provider, queue_due_at) WHERE queue_due_at IS NOT NULL;
        CREATE TABLE push_deliveries (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            target_id INTEGER NOT NULL REFERENCES push_targets (id) ON DELETE CASCADE,
            kind TEXT NOT NULL CHECK (kind IN ('message', 'bell', 'withdraw')),
            conversation TEXT,
            message TEXT,
            notification TEXT,
            sender TEXT,
            title TEXT NOT NULL,
            body TEXT NOT NULL,
            url TEXT,
            badge INTEGER NOT NULL,
            created_at INTEGER NOT NULL,
            expires_at INTEGER NOT NULL,
            attempts INTEGER NOT NULL DEFAULT 0,
            next_attempt_at INTEGER NOT NULL,
            leased_until INTEGER
        );
        CREATE INDEX push_deliveries_by_target ON push_deliveries (target_id, id);
        CREATE TABLE push_bell_alerts (
            target_id INTEGER NOT NULL REFERENCES push_targets (id) ON DELETE CASCADE,
            notification TEXT NOT NULL,
            created_at INTEGER NOT NULL,
            PRIMARY KEY (target_id, notification)
        );
        """,
        // 8: alert settings (N1, N3, N4), see Schema+AlertSettings.swift.
        alertSettingsMigration,
        // 9: messages changed after sending (M1, M2). An edit replaces `text` and counts itself; an unsend stamps
        // `unsent_at`, clears the content and takes the message out of the unread counters (see SQLiteStore+Edits).
        """
        ALTER TABLE messages ADD COLUMN edit_count INTEGER NOT NULL DEFAULT 0;
        ALTER TABLE messages ADD COLUMN edited_at INTEGER;
        ALTER TABLE messages ADD COLUMN unsent_at INTEGER;
        """,
        // 10: when each user was last seen (E2), see Schema+LastSeen.swift.
        lastSeenMigration,
        // 11: the index on last_activity is never used (a user's list is found through participants and sorted), and
        // every send rewrote its entry.
        "DROP INDEX conversations_activity;",
        // 12: who each event body went to, so a stream's newest run can be read to its end even when its row is behind
        // (StreamCache defers rewriting a run that only grew): every participant of `audience_conversation` as it
        // stood, or `audience_user` alone; neither when the body went to another list of users (its runs are written
        // at once). Existing bodies have neither: every run that covers them is already written.
        """
        ALTER TABLE event_bodies ADD COLUMN audience_conversation INTEGER;
        ALTER TABLE event_bodies ADD COLUMN audience_user TEXT;
        """,
        // 13: the per-user daily storage quota (Schema+StorageUsage.swift).
        storageUsageMigration,
        // 14: a queued push's opaque reference (`--push-preview none`: the id it carries instead of conversation,
        // message and sender) and its claims in a row whose lease ran out unsettled (the gateway quarantines a push
        // that keeps killing its worker).
        """
        ALTER TABLE push_deliveries ADD COLUMN reference TEXT;
        ALTER TABLE push_deliveries ADD COLUMN lapsed_claims INTEGER NOT NULL DEFAULT 0;
        """,
        // 15: groups change after they are made (Schema+GroupChanges.swift).
        groupChangesMigration,
        // 16: reactions under messages, each (message, user, emoji) once, read a page of a thread at a time.
        """
        CREATE TABLE reactions (
            conversation_id INTEGER NOT NULL,
            message_id INTEGER NOT NULL,
            user_id TEXT NOT NULL,
            emoji TEXT NOT NULL,
            created_at INTEGER NOT NULL,
            PRIMARY KEY (conversation_id, message_id, user_id, emoji)
        ) WITHOUT ROWID;
        """,
        // 17: search within a conversation (Schema+MessageSearch.swift).
        messageSearchMigration,
    ]
}
