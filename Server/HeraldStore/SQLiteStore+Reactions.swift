import HeraldStoreProtocol

extension SQLiteStore {
    // MARK: - Reactions under messages

    public func addReaction(message: String, conversation: String, user: String, emoji: String, now: Int64) throws -> Bool {
        guard let messageKey = RecordID.parse(RecordID.message, message), let conversationKey = RecordID.parse(RecordID.conversation, conversation)
        else { return false }
        return try transaction {
            try connection.execute(
                "INSERT OR IGNORE INTO reactions (conversation_id, message_id, user_id, emoji, created_at) VALUES (?, ?, ?, ?, ?)",
                .int(conversationKey), .int(messageKey), .text(user), .text(emoji), .int(now)) == 1
        }
    }

    public func reactions(conversation: String, first: String, last: String, limit: Int) throws -> [ReactionRecord] {
        guard let conversationKey = RecordID.parse(RecordID.conversation, conversation), let low = RecordID.parse(RecordID.message, first),
            let high = RecordID.parse(RecordID.message, last), limit > 0
        else { return [] }
        return try connection.query(
            """
            SELECT message_id, user_id, emoji, created_at FROM reactions
            WHERE conversation_id = ? AND message_id BETWEEN ? AND ?
            ORDER BY message_id, created_at, user_id, emoji LIMIT ?
            """, .int(conversationKey), .int(min(low, high)), .int(max(low, high)), .int(Int64(limit))
        ) { row in
            ReactionRecord(message: RecordID.format(RecordID.message, row.int(0)), user: row.text(1), emoji: row.text(2), createdAt: row.int(3))
        }
    }
}
