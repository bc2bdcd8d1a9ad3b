import HeraldStoreProtocol
extension SQLiteStore {
    // MARK: - Push outbox (P)

    public func enqueuePush(
        user: String, device: String, conversation: String, message: String, sender: String,
        preview: String, url: String, now: Int64
    ) throws -> Int64 {
        guard let conversationRowID = RecordID.parse(RecordID.conversation, conversation) else {
            throw StoreError(kind: .notFound, message: "unknown conversation \(conversation)")
        }
        guard let messageRowID = RecordID.parse(RecordID.message, message) else {
            throw StoreError(kind: .notFound, message: "unknown message \(message)")
        }
        return try transaction {
            try connection.execute(
                """
                INSERT INTO pushes (user_id, device, conversation_id, message_id, sender_id, preview, url, created_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                """,
                .text(user), .text(device), .int(conversationRowID), .int(messageRowID), .text(sender), .text(preview), .text(url), .int(now))
            return connection.lastInsertRowID
        }
    }

    public func withdrawPushes(message: String, user: String, now: Int64) throws -> [PushRecord] {
        guard let messageRowID = RecordID.parse(RecordID.message, message) else { return [] }
        return try transaction {
            let active = try connection.query(
                "SELECT \(Self.pushColumns) FROM pushes WHERE message_id = ? AND user_id = ? AND withdrawn_at IS NULL ORDER BY id",
                .int(messageRowID), .text(user), row: Self.pushRecord)
            try connection.execute(
                "UPDATE pushes SET withdrawn_at = ? WHERE message_id = ? AND user_id = ? AND withdrawn_at IS NULL",
                .int(now), .int(messageRowID), .text(user))
            return active.map { push in
                var withdrawn = push
                withdrawn.withdrawnAt = now
                return withdrawn
            }
        }
    }

    public func pushes(user: String) throws -> [PushRecord] {
        try connection.query(
            "SELECT \(Self.pushColumns) FROM pushes WHERE user_id = ? AND withdrawn_at IS NULL ORDER BY id", .text(user), row: Self.pushRecord)
    }

    @discardableResult
    public func prunePushes(olderThan cutoff: Int64) throws -> Int {
        try transaction {
            try connection.execute("DELETE FROM push_bell_alerts WHERE created_at < ?", .int(cutoff))
            return try connection.execute("DELETE FROM pushes WHERE created_at < ?", .int(cutoff))
        }
    }

    static let pushColumns = "id, user_id, device, conversation_id, message_id, sender_id, preview, url, created_at, withdrawn_at"

    static func pushRecord(_ row: SQLiteRow) -> PushRecord {
        PushRecord(
            id: row.int(0), user: row.text(1), device: row.text(2), conversation: RecordID.format(RecordID.conversation, row.int(3)),
            message: RecordID.format(RecordID.message, row.int(4)), sender: row.text(5), preview: row.text(6), url: row.text(7),
            createdAt: row.int(8), withdrawnAt: row.optionalInt(9))
    }
}
