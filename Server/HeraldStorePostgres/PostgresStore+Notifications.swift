import HeraldStore

extension PostgresStore {
    // MARK: - Bell (B1-B4)

    public func createNotification(user: String, kind: String, actor: String?, text: String, url: String?, now: Int64) throws -> NotificationRecord {
        try transaction {
            guard
                let key = try connection.scalar(
                    "INSERT INTO notifications (user_id, kind, actor, text, url, created_at) VALUES ($1, $2, $3, $4, $5, $6) RETURNING id",
                    .text(user), .text(kind), .optionalText(actor), .text(text), .optionalText(url), .int(now))
            else { throw StoreError(kind: .other, message: "INSERT … RETURNING returned no row") }
            try connection.execute(
                """
                DELETE FROM notifications WHERE user_id = $1 AND id <= (
                    SELECT id FROM notifications WHERE user_id = $1 ORDER BY id DESC LIMIT 1 OFFSET $2)
                """, .text(user), .int(Int64(notificationsKept)))
            return NotificationRecord(
                id: RecordID.format(RecordID.notification, key), user: user, kind: kind, actor: actor, text: text, url: url,
                createdAt: now, read: false)
        }
    }

    public func notifications(user: String, limit: Int) throws -> [NotificationRecord] {
        guard limit > 0 else { return [] }
        return try connection.query(
            "SELECT id, user_id, kind, actor, text, url, created_at, read FROM notifications WHERE user_id = $1 ORDER BY id DESC LIMIT $2",
            .text(user), .int(Int64(limit))
        ) { row in Self.notificationRecord(row) }
    }

    /// A notification from the first eight columns of `row` (id, user_id, kind, actor, text, url, created_at, read).
    private static func notificationRecord(_ row: PGRow) -> NotificationRecord {
        NotificationRecord(
            id: RecordID.format(RecordID.notification, row.int(0)), user: row.text(1), kind: row.text(2), actor: row.optionalText(3),
            text: row.text(4), url: row.optionalText(5), createdAt: row.int(6), read: row.int(7) != 0)
    }

    public func markNotificationRead(user: String, id: String) throws -> Bool {
        guard let key = RecordID.parse(RecordID.notification, id) else { return false }
        return try connection.execute(
            "UPDATE notifications SET read = true WHERE id = $1 AND user_id = $2 AND NOT read", .int(key), .text(user)) == 1
    }

    @discardableResult
    public func markAllNotificationsRead(user: String) throws -> Int {
        try connection.execute("UPDATE notifications SET read = true WHERE user_id = $1 AND NOT read", .text(user))
    }

    /// One statement, so one round trip and one snapshot. A user with no notification listed has none at all, so
    /// none unread.
    public func bell(user: String, limit: Int) throws -> Bell {
        guard limit > 0 else { return Bell(notifications: [], unread: try unreadNotificationCount(user: user)) }
        var unread = 0
        let notifications = try connection.query(
            """
            SELECT id, user_id, kind, actor, text, url, created_at, read, (SELECT count(*) FROM notifications WHERE user_id = $1 AND NOT read)
            FROM notifications WHERE user_id = $1 ORDER BY id DESC LIMIT $2
            """,
            .text(user), .int(Int64(limit))
        ) { row in
            unread = Int(row.int(8))
            return Self.notificationRecord(row)
        }
        return Bell(notifications: notifications, unread: unread)
    }

    public func unreadNotificationCount(user: String) throws -> Int {
        Int(try connection.scalar("SELECT count(*) FROM notifications WHERE user_id = $1 AND NOT read", .text(user)) ?? 0)
    }
}
