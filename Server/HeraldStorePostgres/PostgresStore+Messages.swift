import HeraldStore

extension PostgresStore {
    // MARK: - Messages

    public func insertMessage(
        conversation: String, sender: String, clientMessageId: String, kind: MessageRecord.Kind,
        text: String?, imageURL: String?, now: Int64
    ) throws -> (message: MessageRecord, duplicate: Bool) {
        guard let key = RecordID.parse(RecordID.conversation, conversation) else {
            throw StoreError(kind: .notFound, message: "unknown conversation \(conversation)")
        }
        // R4 inside this batch, then in the database; R5 from the batch's copy of the conversation. The insert itself
        // and the counters wait for COMMIT (one statement for the whole batch), under the nodes' write lock, so nothing
        // else writes meanwhile and the ids taken now are above every id committed before (R2).
        //
        // Inside a batch (a request's savepoint within the batch's transaction) R4 against the database is left to
        // the unique key: a retry of a message stored before makes the batch's COMMIT fail, and the sync core redoes
        // the batch request by request, each in a transaction of its own, where the read below answers it. Retries are
        // rare; a round trip per send is not.
        let pendingKey = PendingStreams.messageKey(sender: sender, clientMessageId: clientMessageId)
        if let index = pending.messageIndex[pendingKey] { return (pending.messages[index], true) }
        let inBatch = connection.transactionDepth >= 2
        return try joiningTransaction {
            if !inBatch, let original = try connection.queryFirst(
                "SELECT \(Self.messageColumns) FROM messages WHERE sender_id = $1 AND client_message_id = $2", .text(sender), .text(clientMessageId),
                row: { row in Self.messageRecord(row, from: 0) })
            {
                return (original, true)
            }
            guard var stored = try self.conversation(key: key) else {
                throw StoreError(kind: .notFound, message: "unknown conversation \(conversation)")
            }
            guard stored.participants.contains(sender) else {
                throw StoreError(kind: .constraint, message: "\(sender) is not a participant of \(conversation)")
            }
            let messageKey = try nextMessageID()
            let record = MessageRecord(
                id: RecordID.format(RecordID.message, messageKey), conversation: conversation, sender: sender,
                clientMessageId: clientMessageId, kind: kind, text: text, imageURL: imageURL, createdAt: now, order: messageKey)
            pending.addMessage(record, key: pendingKey)
            stored.lastActivity = max(stored.lastActivity, now)
            conversationsInTransaction[key] = stored
            return (record, false)
        }
    }

    /// The next message id, from a block taken under the write lock of this transaction, or of an earlier one of this
    /// store when no other writer committed since (the write clock says so): ids still follow commit order (R2).
    func nextMessageID() throws(StoreError) -> Int64 {
        if messageIDPool.isEmpty {
            // One nextval and one setval take the whole block: every other taker of message ids (another node's
            // block, `herald_send_message`) holds the write lock too, so nobody draws between the two.
            let block = Self.messageIDBlock
            guard let last = try connection.scalar(
                "SELECT setval(pg_get_serial_sequence('messages', 'id'), nextval(pg_get_serial_sequence('messages', 'id')) + $1)",
                .int(block - 1))
            else { throw StoreError(kind: .other, message: "no message id was reserved") }
            messageIDPool = Array(stride(from: last, through: last - block + 1, by: -1))
        }
        guard let id = messageIDPool.popLast() else { throw StoreError(kind: .other, message: "no message id was reserved") }
        return id
    }

    public func message(id: String) throws -> MessageRecord? {
        guard let key = RecordID.parse(RecordID.message, id) else { return nil }
        try writePending()
        return try message(key: key)
    }

    public func history(conversation: String, before: String?, limit: Int) throws -> [MessageRecord] {
        guard let key = RecordID.parse(RecordID.conversation, conversation), limit > 0 else { return [] }
        try writePending()
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

    static let messageColumns = "id, conversation_id, sender_id, client_message_id, kind, text, image_url, created_at, edit_count, edited_at, unsent_at"

    /// A message from the eleven ``messageColumns`` starting at column `first`.
    static func messageRecord(_ row: PGRow, from first: Int32) -> MessageRecord {
        let key = row.int(first)
        return MessageRecord(
            id: RecordID.format(RecordID.message, key), conversation: RecordID.format(RecordID.conversation, row.int(first + 1)),
            sender: row.text(first + 2), clientMessageId: row.text(first + 3), kind: MessageRecord.Kind(rawValue: row.int(first + 4)) ?? .text,
            text: row.optionalText(first + 5), imageURL: row.optionalText(first + 6), createdAt: row.int(first + 7), order: key,
            editCount: Int(row.int(first + 8)), editedAt: row.optionalInt(first + 9), unsentAt: row.optionalInt(first + 10))
    }

    func message(key: Int64) throws(StoreError) -> MessageRecord? {
        try connection.queryFirst("SELECT \(Self.messageColumns) FROM messages WHERE id = $1", .int(key)) { row in
            Self.messageRecord(row, from: 0)
        }
    }
}
