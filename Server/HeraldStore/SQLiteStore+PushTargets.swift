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
        try transaction {
            try connection.execute(
                """
                INSERT INTO push_deliveries (target_id, kind, conversation, message, notification, sender, title, body, url, badge,
                    created_at, expires_at, next_attempt_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """,
                .int(delivery.target.id), .text(delivery.kind.rawValue), .optionalText(delivery.conversation), .optionalText(delivery.message),
                .optionalText(delivery.notification), .optionalText(delivery.sender), .text(delivery.title), .text(delivery.body),
                .optionalText(delivery.url), .int(Int64(delivery.badge)), .int(delivery.createdAt), .int(delivery.expiresAt), .int(notBefore))
            let id = connection.lastInsertRowID
            if delivery.quiet || delivery.mentioned {  // N2, N3
                try connection.execute(
                    "UPDATE push_deliveries SET quiet = ?, mentioned = ? WHERE id = ?", .int(delivery.quiet ? 1 : 0), .int(delivery.mentioned ? 1 : 0), .int(id))
            }
            if let reference = delivery.reference {
                try connection.execute("UPDATE push_deliveries SET reference = ? WHERE id = ?", .text(reference), .int(id))
            }
            // A queue that was empty gets this row as its head; one that was not keeps its head (rows go out in order).
            try connection.execute(
                "UPDATE push_targets SET queue_due_at = coalesce(queue_due_at, ?) WHERE id = ?", .int(notBefore), .int(delivery.target.id))
            return id
        }
    }

    @discardableResult
    public func cancelPushDeliveries(target: Int64, kind: PushDeliveryKind, message: String?, notification: String?) throws -> Int {
        try transaction {
            let cancelled = try connection.execute(
                """
                DELETE FROM push_deliveries WHERE target_id = ? AND kind = ? AND leased_until IS NULL
                    AND message IS ? AND notification IS ?
                """,
                .int(target), .text(kind.rawValue), .optionalText(message), .optionalText(notification))
            if cancelled > 0 { try settleHead(of: target, releasing: false) }
            return cancelled
        }
    }

    /// Points the target's queue head at its oldest row (none: nothing queued) and, with `releasing`, ends the lease
    /// of the worker that was sending the old head.
    func settleHead(of target: Int64, releasing: Bool) throws {
        try connection.execute(
            """
            UPDATE push_targets SET queue_due_at = (SELECT d.next_attempt_at FROM push_deliveries d WHERE d.target_id = push_targets.id ORDER BY d.id LIMIT 1)
            \(releasing ? ", queue_leased_until = NULL" : "") WHERE id = ?
            """, .int(target))
    }

    public func recordBellAlert(target: Int64, notification: String, now: Int64) throws {
        try connection.execute(
            "INSERT OR REPLACE INTO push_bell_alerts (target_id, notification, created_at) VALUES (?, ?, ?)", .int(target), .text(notification), .int(now))
    }

    public func takeBellAlerts(user: String, notifications: [String]) throws -> [(target: PushTargetRecord, notification: String)] {
        try transaction {
            var taken: [(target: PushTargetRecord, notification: String)] = []
            for notification in notifications {
                let rows = try connection.query(
                    """
                    SELECT \(Self.targetColumns) FROM push_bell_alerts a JOIN push_targets t ON t.id = a.target_id
                    WHERE t.user_id = ? AND a.notification = ? ORDER BY t.device
                    """, .text(user), .text(notification), row: { row in Self.pushTarget(row, from: 0) })
                for target in rows {
                    try connection.execute(
                        "DELETE FROM push_bell_alerts WHERE target_id = ? AND notification = ?", .int(target.id), .text(notification))
                    taken.append((target, notification))
                }
            }
            return taken
        }
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
            // Due targets whose head no worker holds; each one's oldest row is its head. Rows waiting behind a head are
            // never read here, so a claim costs what it claims, however long the queue.
            let targets = try connection.query(
                """
                SELECT id FROM push_targets WHERE provider = ? AND queue_due_at <= ? AND (queue_leased_until IS NULL OR queue_leased_until <= ?)
                ORDER BY queue_due_at LIMIT ?
                """,
                .text(provider.rawValue), .int(now), .int(now), .int(Int64(limit)), row: { row in row.int(0) })
            var claimed: [PushDeliveryRecord] = []
            for target in targets {
                guard
                    var head = try connection.queryFirst(
                        """
                        SELECT \(Self.deliveryColumns), \(Self.targetColumns)
                        FROM push_deliveries d JOIN push_targets t ON t.id = d.target_id WHERE d.target_id = ? ORDER BY d.id LIMIT 1
                        """, .int(target), row: { row in Self.delivery(row) })
                else {
                    try settleHead(of: target, releasing: true)
                    continue
                }
                try connection.execute("UPDATE push_targets SET queue_leased_until = ? WHERE id = ?", .int(now + leaseMilliseconds), .int(target))
                // A lease still set on the head ran out with no outcome: the last claim's worker died handling it.
                try connection.execute(
                    """
                    UPDATE push_deliveries SET leased_until = ?, attempts = attempts + 1,
                        lapsed_claims = CASE WHEN leased_until IS NULL THEN 0 ELSE lapsed_claims + 1 END WHERE id = ?
                    """, .int(now + leaseMilliseconds), .int(head.id))
                head.attempts += 1
                head.lapsedClaims = Int(try connection.scalar("SELECT lapsed_claims FROM push_deliveries WHERE id = ?", .int(head.id)) ?? 0)
                claimed.append(head)
            }
            return claimed
        }
    }

    public func completePushDelivery(id: Int64) throws {
        try removeHead(id: id)
    }

    public func retryPushDelivery(id: Int64, at: Int64) throws {
        try transaction {
            guard let target = try connection.scalar("SELECT target_id FROM push_deliveries WHERE id = ?", .int(id)) else { return }
            try connection.execute("UPDATE push_deliveries SET next_attempt_at = ?, leased_until = NULL WHERE id = ?", .int(at), .int(id))
            try settleHead(of: target, releasing: true)
        }
    }

    public func deferPushDelivery(id: Int64, at: Int64) throws {
        try transaction {
            guard let target = try connection.scalar("SELECT target_id FROM push_deliveries WHERE id = ?", .int(id)) else { return }
            try connection.execute(
                "UPDATE push_deliveries SET next_attempt_at = ?, leased_until = NULL, attempts = max(attempts - 1, 0) WHERE id = ?", .int(at), .int(id))
            try settleHead(of: target, releasing: true)
        }
    }

    public func dropPushDelivery(id: Int64) throws {
        try removeHead(id: id)
    }

    /// The row goes, and its target's next row (if any) becomes the head.
    private func removeHead(id: Int64) throws {
        try transaction {
            guard let target = try connection.scalar("SELECT target_id FROM push_deliveries WHERE id = ?", .int(id)) else { return }
            try connection.execute("DELETE FROM push_deliveries WHERE id = ?", .int(id))
            try settleHead(of: target, releasing: true)
        }
    }

    public func removePushTarget(id: Int64, registeredAt: Int64) throws {
        try connection.execute("DELETE FROM push_targets WHERE id = ? AND updated_at <= ?", .int(id), .int(registeredAt))
    }

    public func pushQueueDepth() throws -> Int {
        Int(try connection.scalar("SELECT count(*) FROM push_deliveries") ?? 0)
    }

    public func nextPushAttempt() throws -> Int64? {
        try connection.scalar("SELECT min(max(queue_due_at, coalesce(queue_leased_until, 0))) FROM push_targets WHERE queue_due_at IS NOT NULL")
    }

    static let deliveryColumns =
        "d.id, d.kind, d.conversation, d.message, d.notification, d.sender, d.title, d.body, d.url, d.badge, d.created_at, d.expires_at, d.attempts, "
        + "d.quiet, d.mentioned, d.reference, d.lapsed_claims, d.leased_until"

    static func delivery(_ row: SQLiteRow) -> PushDeliveryRecord {
        var delivery = PushDeliveryRecord(
            id: row.int(0), target: pushTarget(row, from: 18), kind: PushDeliveryKind(rawValue: row.text(1)) ?? .message,
            conversation: row.optionalText(2), message: row.optionalText(3), notification: row.optionalText(4), sender: row.optionalText(5),
            title: row.text(6), body: row.text(7), url: row.optionalText(8), badge: Int(row.int(9)), createdAt: row.int(10),
            expiresAt: row.int(11), attempts: Int(row.int(12)))
        delivery.quiet = row.int(13) != 0  // N3
        delivery.mentioned = row.int(14) != 0  // N2
        delivery.reference = row.optionalText(15)
        delivery.lapsedClaims = Int(row.int(16))
        delivery.previousLeaseEnd = row.optionalInt(17)  // read before the claim sets a new lease
        return delivery
    }
}
