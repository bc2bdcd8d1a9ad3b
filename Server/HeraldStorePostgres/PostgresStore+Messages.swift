import HeraldStore

extension PostgresStore {
    // MARK: - Messages

    public func insertMessage(
        conversation: String, sender: String, clientMessageId: String, kind: MessageRecord.Kind,
        text: String?, imageURL: String?, now: Int64
    ) throws -> (message: MessageRecord, duplicate: Bool) {
        try transaction {
            // R4: a retry returns the original, whatever it carries this time.
            if let original = try original(sender: sender, clientMessageId: clientMessageId) { return (original, true) }
            guard let key = RecordID.parse(RecordID.conversation, conversation) else {
                throw StoreError(kind: .notFound, message: "unknown conversation \(conversation)")
            }
            // Lock the conversation row first: writers of one conversation (on any node) then take message
            // ids, stream sequences and commit in the same order, so storage order is delivery order (R2).
            guard
                let participates = try connection.scalar(
                    """
                    SELECT (SELECT count(*) FROM participants p WHERE p.conversation_id = c.id AND p.user_id = $2)
                    FROM conversations c WHERE c.id = $1 FOR NO KEY UPDATE OF c
                    """, .int(key), .text(sender))
            else {
                throw StoreError(kind: .notFound, message: "unknown conversation \(conversation)")
            }
            guard participates > 0 else {
                throw StoreError(kind: .constraint, message: "\(sender) is not a participant of \(conversation)")
            }
            // The same retry racing on another node: the unique key makes this insert wait for that
            // commit and then do nothing, and the original is returned as a duplicate.
            guard
                let messageKey = try connection.scalar(
                    """
                    INSERT INTO messages (conversation_id, sender_id, client_message_id, kind, text, image_url, created_at)
                    VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (sender_id, client_message_id) DO NOTHING RETURNING id
                    """,
                    .int(key), .text(sender), .text(clientMessageId), .int(kind.rawValue), .optionalText(text), .optionalText(imageURL), .int(now))
            else {
                guard let original = try original(sender: sender, clientMessageId: clientMessageId) else {
                    throw StoreError(kind: .constraint, message: "client message id \(clientMessageId) is taken")
                }
                return (original, true)
            }
            // U1/S7: unread for every participant but the sender, and the conversation's activity, in one statement.
            try connection.execute(
                """
                WITH marked AS (
                    INSERT INTO unread (user_id, message_id, conversation_id)
                    SELECT user_id, $2, conversation_id FROM participants WHERE conversation_id = $1 AND user_id <> $3
                )
                UPDATE conversations SET last_activity = greatest(last_activity, $4) WHERE id = $1
                """, .int(key), .int(messageKey), .text(sender), .int(now))
            let record = MessageRecord(
                id: RecordID.format(RecordID.message, messageKey), conversation: conversation, sender: sender,
                clientMessageId: clientMessageId, kind: kind, text: text, imageURL: imageURL, createdAt: now, order: messageKey)
            return (record, false)
        }
    }

    public func message(id: String) throws -> MessageRecord? {
        guard let key = RecordID.parse(RecordID.message, id) else { return nil }
        return try message(key: key)
    }

    public func history(conversation: String, before: String?, limit: Int) throws -> [MessageRecord] {
        guard let key = RecordID.parse(RecordID.conversation, conversation), limit > 0 else { return [] }
        var cursor = Int64.max
        if let before {
            guard let messageKey = RecordID.parse(RecordID.message, before) else {
                throw StoreError(kind: .notFound, message: "unknown message \(before)")
            }
            cursor = messageKey
        }
        return try connection.query(
            "SELECT \(Self.messageColumns) FROM messages WHERE conversation_id = $1 AND id < $2 ORDER BY id DESC LIMIT $3",
            .int(key), .int(cursor), .int(Int64(limit))
        ) { row in Self.messageRecord(row, from: 0) }
    }

    // MARK: - Internals

    static let messageColumns = "id, conversation_id, sender_id, client_message_id, kind, text, image_url, created_at"

    /// A message from the eight ``messageColumns`` starting at column `first`.
    static func messageRecord(_ row: PGRow, from first: Int32) -> MessageRecord {
        let key = row.int(first)
        return MessageRecord(
            id: RecordID.format(RecordID.message, key), conversation: RecordID.format(RecordID.conversation, row.int(first + 1)),
            sender: row.text(first + 2), clientMessageId: row.text(first + 3), kind: MessageRecord.Kind(rawValue: row.int(first + 4)) ?? .text,
            text: row.optionalText(first + 5), imageURL: row.optionalText(first + 6), createdAt: row.int(first + 7), order: key)
    }

    func message(key: Int64) throws(StoreError) -> MessageRecord? {
        try connection.queryFirst("SELECT \(Self.messageColumns) FROM messages WHERE id = $1", .int(key)) { row in
            Self.messageRecord(row, from: 0)
        }
    }

    private func original(sender: String, clientMessageId: String) throws(StoreError) -> MessageRecord? {
        try connection.queryFirst(
            "SELECT \(Self.messageColumns) FROM messages WHERE sender_id = $1 AND client_message_id = $2", .text(sender), .text(clientMessageId)
        ) { row in Self.messageRecord(row, from: 0) }
    }
}
