import HeraldStoreProtocol
extension SQLiteStore {
    // MARK: - Messages changed after sending (M1, M2)

    public func editMessage(id: String, text: String, maxEdits: Int, now: Int64) throws -> MessageRecord? {
        guard let rowid = RecordID.parse(RecordID.message, id) else { return nil }
        return try transaction {
            // The limit and the unsent flag are checked by the write itself, not by an earlier read.
            guard try connection.execute(
                """
                UPDATE messages SET text = ?, edit_count = edit_count + 1, edited_at = ?
                WHERE id = ? AND kind = ? AND unsent_at IS NULL AND edit_count < ?
                """, .text(text), .int(now), .int(rowid), .int(MessageRecord.Kind.text.rawValue), .int(Int64(maxEdits))) == 1
            else { return nil }
            return try message(rowid: rowid)
        }
    }

    public func unsendMessage(id: String, now: Int64) throws -> (message: MessageRecord, unreadFor: [String])? {
        guard let rowid = RecordID.parse(RecordID.message, id) else { return nil }
        return try transaction {
            guard let record = try message(rowid: rowid), record.unsentAt == nil,
                let conversation = RecordID.parse(RecordID.conversation, record.conversation)
            else { return nil }
            let participants = try participants(of: conversation)
            let readers = Set(try connection.query("SELECT user_id FROM receipts WHERE message_id = ?", .int(rowid)) { row in row.text(0) })
            // unread(u, c) = message_count - sent_count - read_count: the message stops counting for everyone, so the
            // conversation's count, its sender's sent_count and each reader's read_count each lose it. Unread is then
            // one lower exactly for the participants who had not read it; nobody else's count moves.
            try connection.execute(
                "UPDATE messages SET unsent_at = ?, text = NULL, image_url = NULL WHERE id = ?", .int(now), .int(rowid))
            try connection.execute("UPDATE conversations SET message_count = message_count - 1 WHERE id = ?", .int(conversation))
            try connection.execute(
                "UPDATE participants SET sent_count = sent_count - 1 WHERE conversation_id = ? AND user_id = ?",
                .int(conversation), .text(record.sender))
            // G2: a member who joined after it counted it as read when they joined.
            let joinedLater = Set(try connection.query(
                "SELECT user_id FROM participants WHERE conversation_id = ? AND joined_after >= ?", .int(conversation), .int(rowid)
            ) { row in row.text(0) })
            try connection.execute(
                """
                UPDATE participants SET read_count = read_count - 1
                WHERE conversation_id = ? AND (user_id IN (SELECT user_id FROM receipts WHERE message_id = ?) OR joined_after >= ?)
                """, .int(conversation), .int(rowid), .int(rowid))
            guard let unsent = try message(rowid: rowid) else { return nil }
            let unreadFor = participants.filter { $0 != record.sender && !readers.contains($0) && !joinedLater.contains($0) }
            return (unsent, unreadFor)
        }
    }

    public func lastShownMessage(conversation: String) throws -> MessageRecord? {
        guard let rowid = RecordID.parse(RecordID.conversation, conversation) else { return nil }
        return try connection.queryFirst(
            "SELECT \(Self.messageColumns) FROM messages WHERE conversation_id = ? AND unsent_at IS NULL ORDER BY id DESC LIMIT 1",
            .int(rowid), row: Self.messageRecord)
    }

    public func reviseQueuedPushes(message: String, body: String) throws -> Int {
        try connection.execute(
            "UPDATE push_deliveries SET body = ? WHERE kind = 'message' AND message = ? AND leased_until IS NULL",
            .text(body), .text(message))
    }
}
