import HeraldStore

extension PostgresStore {
    // MARK: - Read state

    public func markRead(user: String, messageIds: [String], now: Int64) throws -> [MessageRecord] {
        let keys = messageIds.compactMap { RecordID.parse(RecordID.message, $0) }
        // U7: lock the user's stream head until commit BEFORE reading anything. The caller counts unread next and
        // appends a read event carrying that count; without the lock another node could commit a read (or a new
        // message) for this user in between, and this later event would state an older count than the earlier one.
        // (No head row: the user has no events, hence no unread messages either.)
        // U6: the caller then appends receipts to the senders' streams. Their heads are locked here too, all in user-id
        // order: two users acking each other's messages on two nodes would otherwise each hold the head the other
        // waits for (a deadlock PostgreSQL breaks by aborting one of them).
        try connection.execute(
            """
            SELECT 1::bigint FROM event_heads
            WHERE user_id = $1 OR user_id IN (SELECT sender_id FROM messages WHERE id = ANY ($2))
            ORDER BY user_id FOR UPDATE
            """, .text(user), .intArray(keys))
        guard !keys.isEmpty else { return [] }
        // One statement: only a row in `unread` can become read (it exists only for participants other than
        // the sender, R5/S7, and only until the first read, U3), so the rows the DELETE returns are exactly
        // the newly read ones. Two nodes acking the same message: the second DELETE waits for the first
        // commit, finds the row gone and reports nothing.
        return try connection.query(
            """
            WITH gone AS (
                DELETE FROM unread WHERE user_id = $1 AND message_id = ANY ($2) RETURNING message_id
            ), receipt AS (
                INSERT INTO receipts (message_id, user_id, read_at) SELECT message_id, $1, $3 FROM gone ON CONFLICT DO NOTHING
            )
            SELECT \(Self.messageColumns) FROM messages WHERE id IN (SELECT message_id FROM gone) ORDER BY id
            """, .text(user), .intArray(keys), .int(now)
        ) { row in Self.messageRecord(row, from: 0) }
    }

    public func isRead(user: String, message: String) throws -> Bool {
        guard let key = RecordID.parse(RecordID.message, message) else { return false }
        return try connection.scalar("SELECT 1::bigint FROM receipts WHERE message_id = $1 AND user_id = $2", .int(key), .text(user)) != nil
    }

    public func unreadCount(user: String, conversation: String) throws -> Int {
        guard let key = RecordID.parse(RecordID.conversation, conversation) else { return 0 }
        return Int(try connection.scalar("SELECT count(*) FROM unread WHERE user_id = $1 AND conversation_id = $2", .text(user), .int(key)) ?? 0)
    }

    public func unreadCounts(user: String) throws -> [String: Int] {
        let rows = try connection.query(
            """
            SELECT p.conversation_id,
                   (SELECT count(*) FROM unread u WHERE u.user_id = p.user_id AND u.conversation_id = p.conversation_id)
            FROM participants p WHERE p.user_id = $1
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
