import HeraldStore

extension PostgresStore {
    // MARK: - Messages changed after sending (M1, M2)

    public func editMessage(id: String, text: String, maxEdits: Int, now: Int64) throws -> MessageRecord? {
        guard let key = RecordID.parse(RecordID.message, id) else { return nil }
        return try transaction {
            // The batch's own messages first: the message may have been sent in this very batch.
            try writePending()
            // The conditions are part of the write: a concurrent edit on another node waits for the nodes' write lock,
            // and the row it left is what this one checks.
            return try connection.queryFirst(
                """
                UPDATE messages SET text = $2, edit_count = edit_count + 1, edited_at = $3
                WHERE id = $1 AND kind = $4 AND unsent_at IS NULL AND edit_count < $5
                RETURNING \(Self.messageColumns)
                """, .int(key), .text(text), .int(now), .int(MessageRecord.Kind.text.rawValue), .int(Int64(maxEdits))
            ) { row in Self.messageRecord(row, from: 0) }
        }
    }

    public func unsendMessage(id: String, now: Int64) throws -> (message: MessageRecord, unreadFor: [String])? {
        guard let key = RecordID.parse(RecordID.message, id) else { return nil }
        return try transaction {
            try writePending()
            guard let unsent = try connection.queryFirst(
                "UPDATE messages SET unsent_at = $2, text = NULL, image_url = NULL WHERE id = $1 AND unsent_at IS NULL RETURNING \(Self.messageColumns)",
                .int(key), .int(now), row: { row in Self.messageRecord(row, from: 0) }),
                let conversationKey = RecordID.parse(RecordID.conversation, unsent.conversation)
            else { return nil }
            // unread(u, c) = message_count - sent_count - read_count: the message stops counting for everyone (the
            // conversation's count, its sender's sent_count, each reader's read_count), so unread drops by one exactly
            // for the participants who had not read it.
            var readers = Set(try connection.query("SELECT user_id FROM receipts WHERE message_id = $1", .int(key)) { row in row.text(0) })
            // G2: a member who joined after it counted it as read when they joined.
            readers.formUnion(try connection.query(
                "SELECT user_id FROM participants WHERE conversation_id = $1 AND joined_after >= $2", .int(conversationKey), .int(key)
            ) { row in row.text(0) })
            try connection.execute("UPDATE conversations SET message_count = message_count - 1 WHERE id = $1", .int(conversationKey))
            try connection.execute(
                """
                UPDATE participants SET
                    sent_count = sent_count - CASE WHEN user_id = $2 THEN 1 ELSE 0 END,
                    read_count = read_count - CASE WHEN user_id = ANY ($3) THEN 1 ELSE 0 END
                WHERE conversation_id = $1 AND (user_id = $2 OR user_id = ANY ($3))
                """, .int(conversationKey), .text(unsent.sender), .textArray(Array(readers)))
            let participants = try conversation(key: conversationKey)?.participants ?? []
            return (unsent, participants.filter { $0 != unsent.sender && !readers.contains($0) })
        }
    }

    public func lastShownMessage(conversation: String) throws -> MessageRecord? {
        guard let key = RecordID.parse(RecordID.conversation, conversation) else { return nil }
        try writePending()
        return try connection.queryFirst(
            "SELECT \(Self.messageColumns) FROM messages WHERE conversation_id = $1 AND unsent_at IS NULL ORDER BY id DESC LIMIT 1", .int(key)
        ) { row in Self.messageRecord(row, from: 0) }
    }

    public func reviseQueuedPushes(message: String, body: String) throws -> Int {
        Int(try connection.scalar(
            """
            WITH revised AS (
                UPDATE push_deliveries SET body = $2 WHERE kind = 'message' AND message = $1 AND leased_until IS NULL RETURNING 1
            )
            SELECT count(*) FROM revised
            """, .text(message), .text(body)) ?? 0)
    }
}
