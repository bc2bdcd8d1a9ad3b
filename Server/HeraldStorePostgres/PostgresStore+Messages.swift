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
        // One round trip: herald_insert_message (migration 5) does R4, the conversation lock (R2), R5, the insert and
        // the counters (U1/S7), and returns the conversation with its participants for the fan-out that follows (unless
        // this transaction has them already: a batch of sends to one group reads them once).
        let known = conversationsInTransaction[key]
        return try transaction {
            guard
                let row = try connection.queryFirst(
                    "SELECT * FROM herald_insert_message($1, $2, $3, $4, $5, $6, $7, $8)",
                    .int(key), .text(sender), .text(clientMessageId), .int(kind.rawValue), .optionalText(text), .optionalText(imageURL), .int(now),
                    .bool(known == nil),
                    row: { row in
                        (status: row.int(0), message: row.isNull(1) ? nil : Self.messageRecord(row, from: 1),
                         kind: row.int(9), title: row.optionalText(10), createdAt: row.int(11), lastActivity: row.int(12),
                         participants: row.textArray(13))
                    })
            else { throw StoreError(kind: .other, message: "herald_insert_message returned no row") }
            switch row.status {
            case 2: throw StoreError(kind: .notFound, message: "unknown conversation \(conversation)")
            case 3: throw StoreError(kind: .constraint, message: "\(sender) is not a participant of \(conversation)")
            default: break
            }
            guard let message = row.message else { throw StoreError(kind: .other, message: "herald_insert_message returned no message") }
            if row.status == 0, var known {
                known.lastActivity = max(known.lastActivity, row.lastActivity)
                conversationsInTransaction[key] = known
            } else if row.status == 0 {
                conversationsInTransaction[key] = ConversationRecord(
                    id: conversation, kind: ConversationRecord.Kind(rawValue: row.kind) ?? .group, title: row.title,
                    participants: row.participants, createdAt: row.createdAt, lastActivity: row.lastActivity)
            }
            return (message, row.status == 1)
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
}
