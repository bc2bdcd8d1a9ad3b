import HeraldStoreProtocol

extension SQLiteStore {
    // MARK: - Push targets (devices without a connection)

    public func registerPushTarget(_ target: PushTargetRecord, now: Int64) throws -> PushTargetRecord {
        try transaction {
            // An upsert keeps the row id, so pushes already queued for the device follow it to its new address.
            try connection.execute(
                """
                INSERT INTO push_targets (user_id, device, provider, token, topic, sandbox, p256dh, auth, updated_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT (user_id, device) DO UPDATE SET provider = excluded.provider, token = excluded.token,
                    topic = excluded.topic, sandbox = excluded.sandbox, p256dh = excluded.p256dh, auth = excluded.auth,
                    updated_at = excluded.updated_at
                """,
                .text(target.user), .text(target.device), .text(target.provider.rawValue), .text(target.token), .optionalText(target.topic),
                .int(target.sandbox ? 1 : 0), .optionalText(target.p256dh), .optionalText(target.auth), .int(now))
            guard
                let stored = try connection.queryFirst(
                    "SELECT \(Self.targetColumns) FROM push_targets t WHERE user_id = ? AND device = ?", .text(target.user), .text(target.device),
                    row: { row in Self.pushTarget(row, from: 0) })
            else { throw StoreError(kind: .other, message: "push target vanished inside its own transaction") }
            return stored
        }
    }

    @discardableResult
    public func removePushTarget(user: String, device: String) throws -> Bool {
        try connection.execute("DELETE FROM push_targets WHERE user_id = ? AND device = ?", .text(user), .text(device)) > 0
    }

    @discardableResult
    public func removePushTargets(user: String) throws -> Int {
        try connection.execute("DELETE FROM push_targets WHERE user_id = ?", .text(user))
    }

    public func pushTargets(users: [String]) throws -> [PushTargetRecord] {
        // One indexed lookup per user: SQLite answers each in microseconds, with no statement to build per call.
        var targets: [PushTargetRecord] = []
        for user in users {
            targets += try connection.query(
                "SELECT \(Self.targetColumns) FROM push_targets t WHERE user_id = ? ORDER BY device", .text(user),
                row: { row in Self.pushTarget(row, from: 0) })
        }
        return targets
    }

    public func usersWithPushTargets() throws -> [String] {
        try connection.query("SELECT DISTINCT user_id FROM push_targets", row: { row in row.text(0) })
    }

    @discardableResult
    public func enqueuePushDelivery(_ delivery: PushDeliveryRecord, notBefore: Int64) throws -> Int64 {
        try connection.execute(
            """
            INSERT INTO push_deliveries (target_id, kind, conversation, message, notification, sender, title, body, url, badge,
                created_at, expires_at, next_attempt_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """,
            .int(delivery.target.id), .text(delivery.kind.rawValue), .optionalText(delivery.conversation), .optionalText(delivery.message),
            .optionalText(delivery.notification), .optionalText(delivery.sender), .text(delivery.title), .text(delivery.body),
            .optionalText(delivery.url), .int(Int64(delivery.badge)), .int(delivery.createdAt), .int(delivery.expiresAt), .int(notBefore))
        return connection.lastInsertRowID
    }

    @discardableResult
    public func cancelPushDeliveries(target: Int64, kind: PushDeliveryKind, message: String?, notification: String?) throws -> Int {
        try connection.execute(
            """
            DELETE FROM push_deliveries WHERE target_id = ? AND kind = ? AND leased_until IS NULL
                AND message IS ? AND notification IS ?
            """,
            .int(target), .text(kind.rawValue), .optionalText(message), .optionalText(notification))
    }

    static let targetColumns = "t.id, t.user_id, t.device, t.provider, t.token, t.topic, t.sandbox, t.p256dh, t.auth, t.updated_at"

    static func pushTarget(_ row: SQLiteRow, from first: Int32) -> PushTargetRecord {
        PushTargetRecord(
            id: row.int(first), user: row.text(first + 1), device: row.text(first + 2),
            provider: PushProvider(rawValue: row.text(first + 3)) ?? .webhook, token: row.text(first + 4), topic: row.optionalText(first + 5),
            sandbox: row.int(first + 6) != 0, p256dh: row.optionalText(first + 7), auth: row.optionalText(first + 8),
            updatedAt: row.int(first + 9))
    }
}

extension SQLiteStore: PushQueueStore {
    // MARK: - Push queue (the delivery workers' side)

    public func claimPushDeliveries(provider: PushProvider, limit: Int, now: Int64, leaseMilliseconds: Int64) throws -> [PushDeliveryRecord] {
        try transaction {
            // The oldest row of each target only: a later push to the same device waits for the earlier one, so a
            // device gets its alerts (and a withdrawal after its alert) in order even across retries.
            let claimed = try connection.query(
                """
                SELECT \(Self.deliveryColumns), \(Self.targetColumns)
                FROM push_deliveries d JOIN push_targets t ON t.id = d.target_id
                WHERE t.provider = ? AND d.next_attempt_at <= ? AND (d.leased_until IS NULL OR d.leased_until <= ?)
                    AND NOT EXISTS (SELECT 1 FROM push_deliveries e WHERE e.target_id = d.target_id AND e.id < d.id)
                ORDER BY d.next_attempt_at, d.id LIMIT ?
                """,
                .text(provider.rawValue), .int(now), .int(now), .int(Int64(limit)),
                row: { row in Self.delivery(row) })
            for delivery in claimed {
                try connection.execute(
                    "UPDATE push_deliveries SET leased_until = ?, attempts = attempts + 1 WHERE id = ?", .int(now + leaseMilliseconds),
                    .int(delivery.id))
            }
            return claimed.map { delivery in
                var counted = delivery
                counted.attempts += 1
                return counted
            }
        }
    }

    public func completePushDelivery(id: Int64) throws {
        try connection.execute("DELETE FROM push_deliveries WHERE id = ?", .int(id))
    }

    public func retryPushDelivery(id: Int64, at: Int64) throws {
        try connection.execute("UPDATE push_deliveries SET next_attempt_at = ?, leased_until = NULL WHERE id = ?", .int(at), .int(id))
    }

    public func dropPushDelivery(id: Int64) throws {
        try connection.execute("DELETE FROM push_deliveries WHERE id = ?", .int(id))
    }

    public func removePushTarget(id: Int64, registeredAt: Int64) throws {
        try connection.execute("DELETE FROM push_targets WHERE id = ? AND updated_at <= ?", .int(id), .int(registeredAt))
    }

    public func pushQueueDepth() throws -> Int {
        Int(try connection.scalar("SELECT count(*) FROM push_deliveries") ?? 0)
    }

    public func nextPushAttempt() throws -> Int64? {
        try connection.scalar("SELECT min(max(next_attempt_at, coalesce(leased_until, 0))) FROM push_deliveries")
    }

    static let deliveryColumns =
        "d.id, d.kind, d.conversation, d.message, d.notification, d.sender, d.title, d.body, d.url, d.badge, d.created_at, d.expires_at, d.attempts"

    static func delivery(_ row: SQLiteRow) -> PushDeliveryRecord {
        PushDeliveryRecord(
            id: row.int(0), target: pushTarget(row, from: 13), kind: PushDeliveryKind(rawValue: row.text(1)) ?? .message,
            conversation: row.optionalText(2), message: row.optionalText(3), notification: row.optionalText(4), sender: row.optionalText(5),
            title: row.text(6), body: row.text(7), url: row.optionalText(8), badge: Int(row.int(9)), createdAt: row.int(10),
            expiresAt: row.int(11), attempts: Int(row.int(12)))
    }
}
