import HeraldStoreProtocol
extension SQLiteStore {
    // MARK: - Messages

    public func insertMessage(
        conversation: String, sender: String, clientMessageId: String, kind: MessageRecord.Kind,
        text: String?, imageURL: String?, now: Int64
    ) throws -> (message: MessageRecord, duplicate: Bool) {
        try transaction {
            // R4: a retry returns the original, whatever it carries this time (even to a conversation that does not
            // exist or no longer has the sender).
            func original() throws(StoreError) -> MessageRecord? {
                try connection.queryFirst(
                    "SELECT \(Self.messageColumns) FROM messages WHERE sender_id = ? AND client_message_id = ?",
                    .text(sender), .text(clientMessageId), row: Self.messageRecord)
            }
            guard let conversationRowID = RecordID.parse(RecordID.conversation, conversation) else {
                if let original = try original() { return (original, true) }
                throw StoreError(kind: .notFound, message: "unknown conversation \(conversation)")
            }
            // A participant's conversation exists (participants reference it, and conversations are never deleted):
            // it is looked up only to say why a sender who is not one is refused.
            guard try isParticipant(user: sender, rowid: conversationRowID) else {
                if let original = try original() { return (original, true) }
                guard try connection.scalar("SELECT 1 FROM conversations WHERE id = ?", .int(conversationRowID)) != nil else {
                    throw StoreError(kind: .notFound, message: "unknown conversation \(conversation)")
                }
                throw StoreError(kind: .constraint, message: "\(sender) is not a participant of \(conversation)")
            }
            // The insert itself finds a retry: (sender_id, client_message_id) is unique, so a first send costs no
            // lookup before it (a SELECT per send was 4% of an acknowledged send's instructions).
            let inserted = try connection.execute(
                """
                INSERT INTO messages (conversation_id, sender_id, client_message_id, kind, text, image_url, created_at)
                VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (sender_id, client_message_id) DO NOTHING
                """,
                .int(conversationRowID), .text(sender), .text(clientMessageId), .int(kind.rawValue),
                .optionalText(text), .optionalText(imageURL), .int(now))
            guard inserted > 0 else {
                guard let original = try original() else {
                    throw StoreError(kind: .other, message: "a message of \(sender) with client id \(clientMessageId) conflicted but is not there")
                }
                return (original, true)
            }
            let rowid = connection.lastInsertRowID
            messagesSinceIndexed += 1
            // U1/S7: one more unread for every participant but the sender: two counter updates, however many
            // participants there are (see migration 4).
            try connection.execute(
                "UPDATE conversations SET last_activity = max(last_activity, ?), message_count = message_count + 1 WHERE id = ?",
                .int(now), .int(conversationRowID))
            try connection.execute(
                "UPDATE participants SET sent_count = sent_count + 1 WHERE conversation_id = ? AND user_id = ?",
                .int(conversationRowID), .text(sender))
            let record = MessageRecord(
                id: RecordID.format(RecordID.message, rowid), conversation: conversation, sender: sender,
                clientMessageId: clientMessageId, kind: kind, text: text, imageURL: imageURL, createdAt: now, order: rowid)
            return (record, false)
        }
    }

    public func message(id: String) throws -> MessageRecord? {
        guard let rowid = RecordID.parse(RecordID.message, id) else { return nil }
        return try message(rowid: rowid)
    }

    public func history(conversation: String, before: String?, limit: Int) throws -> [MessageRecord] {
        guard let conversationRowID = RecordID.parse(RecordID.conversation, conversation), limit > 0 else { return [] }
        var cursor = Int64.max
        if let before {
            guard let rowid = RecordID.parse(RecordID.message, before) else {
                throw StoreError(kind: .notFound, message: "unknown message \(before)")
            }
            cursor = rowid
        }
        return try connection.query(
            "SELECT \(Self.messageColumns) FROM messages WHERE conversation_id = ? AND id < ? ORDER BY id DESC LIMIT ?",
            .int(conversationRowID), .int(cursor), .int(Int64(limit)), row: Self.messageRecord)
    }

    // MARK: - Internals

    static let messageColumns = "id, conversation_id, sender_id, client_message_id, kind, text, image_url, created_at, edit_count, edited_at, unsent_at"

    static func messageRecord(_ row: SQLiteRow) -> MessageRecord {
        let rowid = row.int(0)
        return MessageRecord(
            id: RecordID.format(RecordID.message, rowid), conversation: RecordID.format(RecordID.conversation, row.int(1)),
            sender: row.text(2), clientMessageId: row.text(3), kind: MessageRecord.Kind(rawValue: row.int(4)) ?? .text,
            text: row.optionalText(5), imageURL: row.optionalText(6), createdAt: row.int(7), order: rowid, editCount: Int(row.int(8)),
            editedAt: row.optionalInt(9), unsentAt: row.optionalInt(10))
    }

    func message(rowid: Int64) throws(StoreError) -> MessageRecord? {
        try connection.queryFirst("SELECT \(Self.messageColumns) FROM messages WHERE id = ?", .int(rowid), row: Self.messageRecord)
    }
}
