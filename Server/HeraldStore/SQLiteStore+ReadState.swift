extension SQLiteStore {
    // MARK: - Read state

    public func markRead(user: String, messageIds: [String], now: Int64) throws -> [MessageRecord] {
        try transaction {
            var newlyRead: [MessageRecord] = []
            for id in messageIds {
                guard let rowid = RecordID.parse(RecordID.message, id) else { continue }
                // Only a row in `unread` can become read: it exists only for participants other than
                // the sender (R5, S7) and only until the first read (U3), so "changed a row" is "newly read".
                guard try connection.execute("DELETE FROM unread WHERE user_id = ? AND message_id = ?", .text(user), .int(rowid)) == 1
                else { continue }
                try connection.execute(
                    "INSERT OR IGNORE INTO receipts (message_id, user_id, read_at) VALUES (?, ?, ?)", .int(rowid), .text(user), .int(now))
                if let record = try message(rowid: rowid) { newlyRead.append(record) }
            }
            return newlyRead.sorted { $0.order < $1.order }
        }
    }

    public func isRead(user: String, message: String) throws -> Bool {
        guard let rowid = RecordID.parse(RecordID.message, message) else { return false }
        return try connection.scalar("SELECT 1 FROM receipts WHERE message_id = ? AND user_id = ?", .int(rowid), .text(user)) != nil
    }

    public func unreadCount(user: String, conversation: String) throws -> Int {
        guard let rowid = RecordID.parse(RecordID.conversation, conversation) else { return 0 }
        return try unreadCount(user: user, rowid: rowid)
    }

    public func unreadCounts(user: String) throws -> [String: Int] {
        let rows = try connection.query(
            """
            SELECT p.conversation_id,
                   (SELECT count(*) FROM unread u WHERE u.user_id = p.user_id AND u.conversation_id = p.conversation_id)
            FROM participants p WHERE p.user_id = ?
            """, .text(user)
        ) { row in (RecordID.format(RecordID.conversation, row.int(0)), Int(row.int(1))) }
        return Dictionary(rows, uniquingKeysWith: { first, _ in first })
    }

    public func readers(of message: String) throws -> [ReadReceipt] {
        guard let rowid = RecordID.parse(RecordID.message, message) else { return [] }
        return try connection.query(
            "SELECT user_id, read_at FROM receipts WHERE message_id = ? ORDER BY read_at, user_id", .int(rowid)
        ) { row in ReadReceipt(user: row.text(0), readAt: row.int(1)) }
    }

    func unreadCount(user: String, rowid: Int64) throws(StoreError) -> Int {
        Int(try connection.scalar("SELECT count(*) FROM unread WHERE user_id = ? AND conversation_id = ?", .text(user), .int(rowid)) ?? 0)
    }
}
