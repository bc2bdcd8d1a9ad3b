import HeraldStore

extension PostgresStore {
    // MARK: - Read state

    public func markRead(user: String, messageIds: [String], now: Int64) throws -> [MessageRecord] {
        let keys = messageIds.compactMap { RecordID.parse(RecordID.message, $0) }
        return try transaction {
            try writePending()
            // U7 and U6 need no row locks here: every writer of every node holds the write lock until it commits, so the
            // counts the caller reads next and the seqs its read event and receipts get are in one order across nodes.
            guard !keys.isEmpty else { return [] }
            // One statement: a receipt is inserted only for a participant other than the sender (R5/S7), never for a
            // system line or a message from before the reader joined (G2), and only by the first read (U3), so the rows it returns are exactly the newly read ones; their conversations' read counters
            // move by as many. Two nodes acking the same message: the second insert waits for the first commit and does
            // nothing.
            return try connection.query(
                """
                WITH target AS (
                    SELECT m.id FROM messages m JOIN participants p ON p.conversation_id = m.conversation_id AND p.user_id = $1
                    WHERE m.id = ANY ($2) AND m.sender_id <> $1 AND m.unsent_at IS NULL AND m.kind <> $4 AND m.id > p.joined_after
                ), fresh AS (
                    INSERT INTO receipts (message_id, user_id, read_at) SELECT id, $1, $3 FROM target ON CONFLICT DO NOTHING
                    RETURNING message_id
                ), counted AS (
                    UPDATE participants p SET read_count = p.read_count + n.read
                    FROM (SELECT m.conversation_id, count(*) AS read FROM fresh f JOIN messages m ON m.id = f.message_id GROUP BY 1) n
                    WHERE p.conversation_id = n.conversation_id AND p.user_id = $1
                )
                SELECT \(Self.messageColumns) FROM messages WHERE id IN (SELECT message_id FROM fresh) ORDER BY id
                """, .text(user), .intArray(keys), .int(now), .int(MessageRecord.Kind.system.rawValue)
            ) { row in Self.messageRecord(row, from: 0) }
        }
    }

    public func isRead(user: String, message: String) throws -> Bool {
        guard let key = RecordID.parse(RecordID.message, message) else { return false }
        return try connection.scalar("SELECT 1::bigint FROM receipts WHERE message_id = $1 AND user_id = $2", .int(key), .text(user)) != nil
    }

    public func unreadCount(user: String, conversation: String) throws -> Int {
        try writePending()
        guard let key = RecordID.parse(RecordID.conversation, conversation) else { return 0 }
        return Int(try connection.scalar(
            """
            SELECT c.message_count - p.sent_count - p.read_count
            FROM participants p JOIN conversations c ON c.id = p.conversation_id WHERE p.user_id = $1 AND p.conversation_id = $2
            """, .text(user), .int(key)) ?? 0)
    }

    public func unreadCounts(user: String) throws -> [String: Int] {
        try writePending()
        let rows = try connection.query(
            """
            SELECT p.conversation_id, c.message_count - p.sent_count - p.read_count
            FROM participants p JOIN conversations c ON c.id = p.conversation_id WHERE p.user_id = $1
            """, .text(user)
        ) { row in (RecordID.format(RecordID.conversation, row.int(0)), Int(row.int(1))) }
        return Dictionary(rows, uniquingKeysWith: { first, _ in first })
    }

    public func readers(of message: String) throws -> [ReadReceipt] {
        guard let key = RecordID.parse(RecordID.message, message) else { return [] }
        return try connection.query(
            "SELECT user_id, read_at FROM receipts WHERE message_id = $1 ORDER BY read_at, user_id", .int(key)
        ) { row in ReadReceipt(user: row.text(0), readAt: row.int(1)) }
    }
}
