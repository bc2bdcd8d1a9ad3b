import HeraldStoreProtocol
extension SQLiteStore {
    // MARK: - Read state

    public func markRead(user: String, messageIds: [String], now: Int64) throws -> [MessageRecord] {
        try transaction {
            var newlyRead: [MessageRecord] = []
            for id in messageIds {
                guard let rowid = RecordID.parse(RecordID.message, id), let record = try message(rowid: rowid) else { continue }
                // R5, S7: only a participant's read of someone else's message counts.
                // M2: an unsent message no longer counts, so reading it counts nothing.
                guard record.unsentAt == nil, !record.sender.utf8.elementsEqual(user.utf8), let conversation = RecordID.parse(RecordID.conversation, record.conversation),
                    try isParticipant(user: user, rowid: conversation)
                else { continue }
                // U3: the receipt row makes "became read now" exact: only the first read inserts it. G2: a message from
                // before the reader joined counted as read when they joined, and a system line never counts.
                guard record.kind != .system, try connection.execute(
                    """
                    INSERT OR IGNORE INTO receipts (message_id, user_id, read_at) SELECT ?, ?, ? WHERE NOT EXISTS
                    (SELECT 1 FROM participants WHERE conversation_id = ? AND user_id = ? AND joined_after >= ?)
                    """, .int(rowid), .text(user), .int(now), .int(conversation), .text(user), .int(rowid)) == 1
                else { continue }
                try connection.execute(
                    "UPDATE participants SET read_count = read_count + 1 WHERE conversation_id = ? AND user_id = ?",
                    .int(conversation), .text(user))
                newlyRead.append(record)
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
            SELECT p.conversation_id, c.message_count - p.sent_count - p.read_count
            FROM participants p JOIN conversations c ON c.id = p.conversation_id WHERE p.user_id = ?
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
        Int(try connection.scalar(
            """
            SELECT c.message_count - p.sent_count - p.read_count
            FROM participants p JOIN conversations c ON c.id = p.conversation_id WHERE p.user_id = ? AND p.conversation_id = ?
            """, .text(user), .int(rowid)) ?? 0)
    }
}
