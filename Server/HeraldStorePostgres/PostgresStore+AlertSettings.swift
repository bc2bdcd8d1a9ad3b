import HeraldStore

extension PostgresStore {
    // MARK: - Alert settings (N1, N3, N4)

    public func alertSettings(users: [String]) throws -> [String: UserAlertSettings] {
        guard !users.isEmpty else { return [:] }
        // One statement for every user at once: their conversations' rows, then (without a conversation) those who are in
        // quiet hours. A group the user left keeps their row but no longer counts (the join on participants).
        var settings: [String: UserAlertSettings] = [:]
        for (user, conversation, mutedUntil, marked) in try connection.query(
            """
            SELECT s.user_id, s.conversation_id, s.muted_until, s.marked_unread FROM conversation_settings s
            JOIN participants p ON p.conversation_id = s.conversation_id AND p.user_id = s.user_id WHERE s.user_id = ANY($1)
            UNION ALL
            SELECT user_id, NULL, NULL, NULL FROM user_settings WHERE user_id = ANY($1) AND quiet
            """, .textArray(users), row: { row in (row.text(0), row.optionalInt(1), row.optionalInt(2), row.int(3) != 0) })
        {
            guard let conversation else {
                settings[user, default: UserAlertSettings()].quiet = true
                continue
            }
            let id = RecordID.format(RecordID.conversation, conversation)
            if let mutedUntil { settings[user, default: UserAlertSettings()].mutedUntil[id] = mutedUntil }
            if marked { settings[user, default: UserAlertSettings()].markedUnread.insert(id) }
            if settings[user] == nil { settings[user] = UserAlertSettings() }
        }
        return settings
    }

    @discardableResult
    public func setMute(user: String, conversation: String, until: Int64?) throws -> Bool {
        guard let key = RecordID.parse(RecordID.conversation, conversation) else { return false }
        return try transaction {
            guard let until else {
                let changed = try connection.execute(
                    "UPDATE conversation_settings SET muted_until = NULL WHERE user_id = $1 AND conversation_id = $2 AND muted_until IS NOT NULL",
                    .text(user), .int(key)) == 1
                try deleteEmptySettings(user: user, key: key)
                return changed
            }
            return try connection.execute(
                """
                INSERT INTO conversation_settings (user_id, conversation_id, muted_until) VALUES ($1, $2, $3)
                ON CONFLICT (user_id, conversation_id) DO UPDATE SET muted_until = excluded.muted_until
                WHERE conversation_settings.muted_until IS DISTINCT FROM excluded.muted_until
                """, .text(user), .int(key), .int(until)) == 1
        }
    }

    @discardableResult
    public func setMarkedUnread(user: String, conversation: String, marked: Bool) throws -> Bool {
        guard let key = RecordID.parse(RecordID.conversation, conversation) else { return false }
        return try transaction {
            guard marked else {
                let changed = try connection.execute(
                    "UPDATE conversation_settings SET marked_unread = false WHERE user_id = $1 AND conversation_id = $2 AND marked_unread",
                    .text(user), .int(key)) == 1
                try deleteEmptySettings(user: user, key: key)
                return changed
            }
            return try connection.execute(
                """
                INSERT INTO conversation_settings (user_id, conversation_id, marked_unread) VALUES ($1, $2, true)
                ON CONFLICT (user_id, conversation_id) DO UPDATE SET marked_unread = true WHERE NOT conversation_settings.marked_unread
                """, .text(user), .int(key)) == 1
        }
    }

    @discardableResult
    public func setQuiet(user: String, on: Bool) throws -> Bool {
        if on {
            return try connection.execute(
                "INSERT INTO user_settings (user_id, quiet) VALUES ($1, true) ON CONFLICT (user_id) DO NOTHING", .text(user)) == 1
        }
        return try connection.execute("DELETE FROM user_settings WHERE user_id = $1", .text(user)) == 1
    }

    public func endMutes(endedBy now: Int64) throws -> [(user: String, conversation: String)] {
        // One statement: the ended mutes come back, and rows left with neither a mute nor a mark go.
        try connection.query(
            """
            WITH ended AS (
                UPDATE conversation_settings SET muted_until = NULL WHERE muted_until <= $1 RETURNING user_id, conversation_id, marked_unread
            ), emptied AS (
                DELETE FROM conversation_settings s USING ended e
                WHERE s.user_id = e.user_id AND s.conversation_id = e.conversation_id AND NOT e.marked_unread
            )
            SELECT user_id, conversation_id FROM ended
            """, .int(now), row: { row in (user: row.text(0), conversation: RecordID.format(RecordID.conversation, row.int(1))) })
    }

    public func nextMuteEnd() throws -> Int64? {
        try connection.scalar("SELECT min(muted_until) FROM conversation_settings WHERE muted_until < $1", .int(Int64.max))
    }

    /// A row with neither a mute nor a mark says nothing: it goes.
    private func deleteEmptySettings(user: String, key: Int64) throws(StoreError) {
        try connection.execute(
            "DELETE FROM conversation_settings WHERE user_id = $1 AND conversation_id = $2 AND muted_until IS NULL AND NOT marked_unread",
            .text(user), .int(key))
    }
}
