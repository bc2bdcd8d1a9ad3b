import HeraldStoreProtocol

extension SQLiteStore {
    // MARK: - Groups changed after they were made (G1-G4)

    public func groupCreator(conversation: String) throws -> String? {
        guard let rowid = RecordID.parse(RecordID.conversation, conversation) else { return nil }
        return try connection.queryFirst(
            "SELECT created_by FROM conversations WHERE id = ? AND kind = ?", .int(rowid), .int(ConversationRecord.Kind.group.rawValue)
        ) { row in row.optionalText(0) } ?? nil
    }

    public func renameGroup(conversation: String, title: String) throws -> Bool {
        guard let rowid = RecordID.parse(RecordID.conversation, conversation) else { return false }
        return try transaction {
            let changed = try connection.execute(
                "UPDATE conversations SET title = ? WHERE id = ? AND kind = ?", .text(title), .int(rowid),
                .int(ConversationRecord.Kind.group.rawValue))
            // The delivery record keeps the title: it must be read again.
            participantsCache.forget(rowid)
            return changed > 0
        }
    }

    public func addParticipant(user: String, conversation: String) throws -> Bool {
        guard let rowid = RecordID.parse(RecordID.conversation, conversation) else { return false }
        return try transaction {
            guard try connection.scalar(
                "SELECT 1 FROM conversations WHERE id = ? AND kind = ?", .int(rowid), .int(ConversationRecord.Kind.group.rawValue)) != nil
            else { return false }
            guard try connection.scalar("SELECT 1 FROM users WHERE id = ?", .text(user)) != nil else {
                throw StoreError(kind: .notFound, message: "unknown user \(user)")
            }
            // The conversation's earlier bodies did not name the user: their stream's file row must not be read on into
            // them once the conversation does.
            try writeLaggingRun(of: user)
            // G2: everything already in the thread counts as read for them (read_count = message_count, and acks of
            // messages up to joined_after count nothing), so unread(u, c) starts at 0 and stays exact.
            let inserted = try connection.execute(
                """
                INSERT INTO participants (conversation_id, user_id, read_count, joined_after)
                SELECT id, ?, message_count, (SELECT coalesce(max(m.id), 0) FROM messages m WHERE m.conversation_id = conversations.id)
                FROM conversations WHERE id = ? ON CONFLICT (conversation_id, user_id) DO NOTHING
                """, .text(user), .int(rowid))
            // Every fan-out reads the participants from the cache: it must name the user from now on.
            participantsCache.forget(rowid)
            return inserted > 0
        }
    }

    public func insertSystemLine(conversation: String, actor: String, text: String, now: Int64) throws -> MessageRecord {
        guard let rowid = RecordID.parse(RecordID.conversation, conversation) else {
            throw StoreError(kind: .notFound, message: "unknown conversation \(conversation)")
        }
        return try transaction {
            let key = SystemLineKey.make()
            try connection.execute(
                "INSERT INTO messages (conversation_id, sender_id, client_message_id, kind, text, created_at) VALUES (?, ?, ?, ?, ?, ?)",
                .int(rowid), .text(actor), .text(key), .int(MessageRecord.Kind.system.rawValue), .text(text), .int(now))
            let id = connection.lastInsertRowID
            // Activity moves (the list orders by it); message_count does not: a system line is nobody's unread (U1).
            try connection.execute("UPDATE conversations SET last_activity = max(last_activity, ?) WHERE id = ?", .int(now), .int(rowid))
            return MessageRecord(
                id: RecordID.format(RecordID.message, id), conversation: conversation, sender: actor, clientMessageId: key,
                kind: .system, text: text, imageURL: nil, createdAt: now, order: id)
        }
    }
}
