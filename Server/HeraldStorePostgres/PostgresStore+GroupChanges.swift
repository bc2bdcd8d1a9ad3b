import HeraldStore

extension PostgresStore {
    // MARK: - Groups changed after they were made (G1-G4)

    public func groupCreator(conversation: String) throws -> String? {
        guard let key = RecordID.parse(RecordID.conversation, conversation) else { return nil }
        return try connection.queryFirst(
            "SELECT created_by FROM conversations WHERE id = $1 AND kind = $2", .int(key), .int(ConversationRecord.Kind.group.rawValue)
        ) { row in row.optionalText(0) } ?? nil
    }

    public func renameGroup(conversation: String, title: String) throws -> Bool {
        guard let key = RecordID.parse(RecordID.conversation, conversation) else { return false }
        return try transaction {
            let changed = try connection.execute(
                "UPDATE conversations SET title = $2 WHERE id = $1 AND kind = $3", .int(key), .text(title),
                .int(ConversationRecord.Kind.group.rawValue))
            forgetConversation(key)
            return changed > 0
        }
    }

    public func addParticipant(user: String, conversation: String) throws -> Bool {
        guard let key = RecordID.parse(RecordID.conversation, conversation) else { return false }
        return try transaction {
            // The counters and the newest message must include this transaction's sends.
            try writePending()
            guard try connection.scalar(
                "SELECT 1::bigint FROM conversations WHERE id = $1 AND kind = $2", .int(key), .int(ConversationRecord.Kind.group.rawValue)) != nil
            else { return false }
            guard try connection.scalar("SELECT 1::bigint FROM users WHERE id = $1", .text(user)) != nil else {
                throw StoreError(kind: .notFound, message: "unknown user \(user)")
            }
            // G2: everything already in the thread counts as read for them (read_count = message_count, and acks of
            // messages up to joined_after count nothing), so unread(u, c) starts at 0 and stays exact.
            let inserted = try connection.execute(
                """
                INSERT INTO participants (conversation_id, user_id, read_count, joined_after)
                SELECT c.id, $2, c.message_count, (SELECT coalesce(max(m.id), 0) FROM messages m WHERE m.conversation_id = c.id)
                FROM conversations c WHERE c.id = $1 ON CONFLICT (conversation_id, user_id) DO NOTHING
                """, .int(key), .text(user))
            forgetConversation(key)
            return inserted > 0
        }
    }

    public func insertSystemLine(conversation: String, actor: String, text: String, now: Int64) throws -> MessageRecord {
        guard let key = RecordID.parse(RecordID.conversation, conversation) else {
            throw StoreError(kind: .notFound, message: "unknown conversation \(conversation)")
        }
        return try transaction {
            try writePending()
            // An id of this node's block, as a send takes: ids follow commit order (R2).
            let id = try nextMessageID()
            let clientKey = SystemLineKey.make()
            try connection.execute(
                "INSERT INTO messages (id, conversation_id, sender_id, client_message_id, kind, text, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7)",
                .int(id), .int(key), .text(actor), .text(clientKey), .int(MessageRecord.Kind.system.rawValue), .text(text), .int(now))
            // Activity moves (the list orders by it); message_count does not: a system line is nobody's unread (U1).
            try connection.execute("UPDATE conversations SET last_activity = greatest(last_activity, $2) WHERE id = $1", .int(key), .int(now))
            if var cached = conversationsInTransaction[key] {
                cached.lastActivity = max(cached.lastActivity, now)
                conversationsInTransaction[key] = cached
            }
            return MessageRecord(
                id: RecordID.format(RecordID.message, id), conversation: conversation, sender: actor, clientMessageId: clientKey,
                kind: .system, text: text, imageURL: nil, createdAt: now, order: id)
        }
    }

    /// The conversation's title or participants changed: this node's copies go, and the wake-up tells the other nodes
    /// to drop theirs (the same signal a leave sends).
    private func forgetConversation(_ key: Int64) {
        conversationsInTransaction[key] = nil
        committedConversations[key] = nil
        pending.addSignal("left \(key)")
    }
}
