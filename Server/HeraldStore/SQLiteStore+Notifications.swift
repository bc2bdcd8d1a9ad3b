import HeraldStoreProtocol
extension SQLiteStore {
    // MARK: - Bell (B1-B4)

    public func createNotification(user: String, kind: String, actor: String?, text: String, url: String?, now: Int64) throws -> NotificationRecord {
        try transaction {
            try connection.execute(
                "INSERT INTO notifications (user_id, kind, actor, text, url, created_at, read) VALUES (?, ?, ?, ?, ?, ?, 0)",
                .text(user), .text(kind), .optionalText(actor), .text(text), .optionalText(url), .int(now))
            let rowid = connection.lastInsertRowID
            try connection.execute(
                """
                DELETE FROM notifications WHERE user_id = ? AND id <= (
                    SELECT id FROM notifications WHERE user_id = ? ORDER BY id DESC LIMIT 1 OFFSET ?)
                """, .text(user), .text(user), .int(Int64(notificationsKept)))
            return NotificationRecord(
                id: RecordID.format(RecordID.notification, rowid), user: user, kind: kind, actor: actor, text: text, url: url,
                createdAt: now, read: false)
        }
    }

    public func notifications(user: String, limit: Int) throws -> [NotificationRecord] {
        guard limit > 0 else { return [] }
        return try connection.query(
            "SELECT id, user_id, kind, actor, text, url, created_at, read FROM notifications WHERE user_id = ? ORDER BY id DESC LIMIT ?",
            .text(user), .int(Int64(limit))
        ) { row in
            NotificationRecord(
                id: RecordID.format(RecordID.notification, row.int(0)), user: row.text(1), kind: row.text(2), actor: row.optionalText(3),
                text: row.text(4), url: row.optionalText(5), createdAt: row.int(6), read: row.int(7) != 0)
        }
    }

    public func markNotificationRead(user: String, id: String) throws -> Bool {
        guard let rowid = RecordID.parse(RecordID.notification, id) else { return false }
        return try connection.execute(
            "UPDATE notifications SET read = 1 WHERE id = ? AND user_id = ? AND read = 0", .int(rowid), .text(user)) == 1
    }

    @discardableResult
    public func markAllNotificationsRead(user: String) throws -> Int {
        try connection.execute("UPDATE notifications SET read = 1 WHERE user_id = ? AND read = 0", .text(user))
    }

    public func unreadNotificationCount(user: String) throws -> Int {
        Int(try connection.scalar("SELECT count(*) FROM notifications WHERE user_id = ? AND read = 0", .text(user)) ?? 0)
    }
}
