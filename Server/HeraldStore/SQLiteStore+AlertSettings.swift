import HeraldStoreProtocol

extension SQLiteStore {
    // MARK: - Alert settings (N1, N3, N4)

    public func alertSettings(users: [String]) throws -> [String: UserAlertSettings] {
        // Two indexed lookups per user (few: the recipients of due pushes, or one user), no statement built per call.
        var settings: [String: UserAlertSettings] = [:]
        for user in users {
            var found = UserAlertSettings()
            var any = false
            // A group the user left keeps their row but no longer counts (the join on participants).
            for (conversation, mutedUntil, marked) in try connection.query(
                """
                SELECT s.conversation_id, s.muted_until, s.marked_unread FROM conversation_settings s
                JOIN participants p ON p.conversation_id = s.conversation_id AND p.user_id = s.user_id WHERE s.user_id = ?
                """, .text(user), row: { row in (row.int(0), row.optionalInt(1), row.int(2) != 0) })
            {
                let id = RecordID.format(RecordID.conversation, conversation)
                if let mutedUntil { found.mutedUntil[id] = mutedUntil }
                if marked { found.markedUnread.insert(id) }
                any = true
            }
            if try connection.scalar("SELECT quiet FROM user_settings WHERE user_id = ?", .text(user)) == 1 {
                found.quiet = true
                any = true
            }
            if any { settings[user] = found }
        }
        return settings
    }

    @discardableResult
    public func setMute(user: String, conversation: String, until: Int64?) throws -> Bool {
        guard let rowid = RecordID.parse(RecordID.conversation, conversation) else { return false }
        return try transaction {
            guard let until else {
                let changed = try connection.execute(
                    "UPDATE conversation_settings SET muted_until = NULL WHERE user_id = ? AND conversation_id = ? AND muted_until IS NOT NULL",
                    .text(user), .int(rowid)) == 1
                try deleteEmptySettings(user: user, rowid: rowid)
                return changed
            }
            return try connection.execute(
                """
                INSERT INTO conversation_settings (user_id, conversation_id, muted_until) VALUES (?, ?, ?)
                ON CONFLICT (user_id, conversation_id) DO UPDATE SET muted_until = excluded.muted_until
                WHERE muted_until IS NOT excluded.muted_until
                """, .text(user), .int(rowid), .int(until)) == 1
        }
    }

    @discardableResult
    public func setMarkedUnread(user: String, conversation: String, marked: Bool) throws -> Bool {
        guard let rowid = RecordID.parse(RecordID.conversation, conversation) else { return false }
        return try transaction {
            guard marked else {
                let changed = try connection.execute(
                    "UPDATE conversation_settings SET marked_unread = 0 WHERE user_id = ? AND conversation_id = ? AND marked_unread = 1",
                    .text(user), .int(rowid)) == 1
                try deleteEmptySettings(user: user, rowid: rowid)
                return changed
            }
            return try connection.execute(
                """
                INSERT INTO conversation_settings (user_id, conversation_id, marked_unread) VALUES (?, ?, 1)
                ON CONFLICT (user_id, conversation_id) DO UPDATE SET marked_unread = 1 WHERE marked_unread = 0
                """, .text(user), .int(rowid)) == 1
        }
    }

    @discardableResult
    public func setQuiet(user: String, on: Bool) throws -> Bool {
        if on {
            return try connection.execute("INSERT OR IGNORE INTO user_settings (user_id, quiet) VALUES (?, 1)", .text(user)) == 1
        }
        return try connection.execute("DELETE FROM user_settings WHERE user_id = ?", .text(user)) == 1
    }

    public func endMutes(endedBy now: Int64) throws -> [(user: String, conversation: String)] {
        try transaction {
            // One writer at a time (the transaction's lock): what the SELECT finds is exactly what the UPDATE ends.
            let ended = try connection.query(
                "SELECT user_id, conversation_id FROM conversation_settings WHERE muted_until <= ?",
                .int(now), row: { row in (user: row.text(0), conversation: RecordID.format(RecordID.conversation, row.int(1))) })
            guard !ended.isEmpty else { return ended }
            try connection.execute("UPDATE conversation_settings SET muted_until = NULL WHERE muted_until <= ?", .int(now))
            try connection.execute("DELETE FROM conversation_settings WHERE muted_until IS NULL AND marked_unread = 0")
            return ended
        }
    }

    public func nextMuteEnd() throws -> Int64? {
        try connection.scalar("SELECT min(muted_until) FROM conversation_settings WHERE muted_until < ?", .int(Int64.max))
    }

    /// A row with neither a mute nor a mark says nothing: it goes.
    private func deleteEmptySettings(user: String, rowid: Int64) throws(StoreError) {
        try connection.execute(
            "DELETE FROM conversation_settings WHERE user_id = ? AND conversation_id = ? AND muted_until IS NULL AND marked_unread = 0",
            .text(user), .int(rowid))
    }
}
