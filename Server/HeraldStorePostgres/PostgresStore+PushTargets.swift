import HeraldStore

extension PostgresStore {
    // MARK: - Push targets (devices without a connection)

    public func registerPushTarget(_ target: PushTargetRecord, now: Int64) throws -> PushTargetRecord {
        try transaction {
            // An upsert keeps the row id, so pushes already queued for the device follow it to its new address.
            guard
                let stored = try connection.queryFirst(
                    """
                    INSERT INTO push_targets AS t (user_id, device, provider, token, topic, sandbox, p256dh, auth, updated_at)
                    VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
                    ON CONFLICT (user_id, device) DO UPDATE SET provider = excluded.provider, token = excluded.token,
                        topic = excluded.topic, sandbox = excluded.sandbox, p256dh = excluded.p256dh, auth = excluded.auth,
                        updated_at = excluded.updated_at
                    RETURNING \(Self.targetColumns)
                    """,
                    .text(target.user), .text(target.device), .text(target.provider.rawValue), .text(target.token), .optionalText(target.topic),
                    .bool(target.sandbox), .optionalText(target.p256dh), .optionalText(target.auth), .int(now),
                    row: { row in Self.pushTarget(row, from: 0) })
            else { throw StoreError(kind: .other, message: "INSERT … RETURNING returned no row") }
            return stored
        }
    }

    @discardableResult
    public func removePushTarget(user: String, device: String) throws -> Bool {
        try transaction { try connection.execute("DELETE FROM push_targets WHERE user_id = $1 AND device = $2", .text(user), .text(device)) > 0 }
    }

    @discardableResult
    public func removePushTargets(user: String) throws -> Int {
        try transaction { try connection.execute("DELETE FROM push_targets WHERE user_id = $1", .text(user)) }
    }

    public func pushTargets(users: [String]) throws -> [PushTargetRecord] {
        guard !users.isEmpty else { return [] }
        return try connection.query(
            "SELECT \(Self.targetColumns) FROM push_targets t WHERE user_id = ANY($1) ORDER BY user_id, device", .textArray(users),
            row: { row in Self.pushTarget(row, from: 0) })
    }

    public func usersWithPushTargets() throws -> [String] {
        try connection.query("SELECT DISTINCT user_id FROM push_targets", row: { row in row.text(0) })
    }

    @discardableResult
    public func enqueuePushDelivery(_ delivery: PushDeliveryRecord, notBefore: Int64) throws -> Int64 {
        try transaction {
            guard
                let id = try connection.scalar(
                    """
                    INSERT INTO push_deliveries (target_id, kind, conversation, message, notification, sender, title, body, url, badge,
                        created_at, expires_at, next_attempt_at)
                    VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13) RETURNING id
                    """,
                    .int(delivery.target.id), .text(delivery.kind.rawValue), .optionalText(delivery.conversation),
                    .optionalText(delivery.message), .optionalText(delivery.notification), .optionalText(delivery.sender), .text(delivery.title),
                    .text(delivery.body), .optionalText(delivery.url), .int(Int64(delivery.badge)), .int(delivery.createdAt),
                    .int(delivery.expiresAt), .int(notBefore))
            else { throw StoreError(kind: .other, message: "INSERT … RETURNING returned no row") }
            if delivery.quiet || delivery.mentioned {  // N2, N3
                try connection.execute(
                    "UPDATE push_deliveries SET quiet = $1, mentioned = $2 WHERE id = $3", .bool(delivery.quiet), .bool(delivery.mentioned), .int(id))
            }
            if let reference = delivery.reference {
                try connection.execute("UPDATE push_deliveries SET reference = $1 WHERE id = $2", .text(reference), .int(id))
            }
            // A queue that was empty gets this row as its head; one that was not keeps its head (rows go out in order).
            try connection.execute(
                "UPDATE push_targets SET queue_due_at = coalesce(queue_due_at, $1) WHERE id = $2", .int(notBefore), .int(delivery.target.id))
            return id
        }
    }

    @discardableResult
    public func cancelPushDeliveries(target: Int64, kind: PushDeliveryKind, message: String?, notification: String?) throws -> Int {
        try transaction {
            let cancelled = try connection.execute(
                """
                DELETE FROM push_deliveries WHERE target_id = $1 AND kind = $2 AND leased_until IS NULL
                    AND message IS NOT DISTINCT FROM $3 AND notification IS NOT DISTINCT FROM $4
                """,
                .int(target), .text(kind.rawValue), .optionalText(message), .optionalText(notification))
            if cancelled > 0 { try connection.execute(Self.settleHead(releasing: false), .int(target)) }
            return cancelled
        }
    }

    /// Points target `$1`'s queue head at its oldest row (none: nothing queued) and, with `releasing`, ends the lease of
    /// the worker that was sending the old head.
    static func settleHead(releasing: Bool) -> String {
        """
        UPDATE push_targets SET queue_due_at = (SELECT d.next_attempt_at FROM push_deliveries d WHERE d.target_id = push_targets.id ORDER BY d.id LIMIT 1)
        \(releasing ? ", queue_leased_until = NULL" : "") WHERE id = $1
        """
    }

    public func recordBellAlert(target: Int64, notification: String, now: Int64) throws {
        _ = try transaction {
            try connection.execute(
                """
                INSERT INTO push_bell_alerts (target_id, notification, created_at) VALUES ($1, $2, $3)
                ON CONFLICT (target_id, notification) DO UPDATE SET created_at = excluded.created_at
                """, .int(target), .text(notification), .int(now))
        }
    }

    public func takeBellAlerts(user: String, notifications: [String]) throws -> [(target: PushTargetRecord, notification: String)] {
        guard !notifications.isEmpty else { return [] }
        return try transaction {
            try connection.query(
                """
                WITH taken AS (
                    DELETE FROM push_bell_alerts a USING push_targets p
                    WHERE p.id = a.target_id AND p.user_id = $1 AND a.notification = ANY($2)
                    RETURNING a.target_id, a.notification)
                SELECT \(Self.targetColumns), taken.notification FROM taken JOIN push_targets t ON t.id = taken.target_id
                ORDER BY taken.notification, t.device
                """, .text(user), .textArray(notifications), row: { row in (Self.pushTarget(row, from: 0), row.text(10)) })
        }
    }

    static let targetColumns = "t.id, t.user_id, t.device, t.provider, t.token, t.topic, (t.sandbox::int)::int8, t.p256dh, t.auth, t.updated_at"

    static func pushTarget(_ row: PGRow, from first: Int32) -> PushTargetRecord {
        PushTargetRecord(
            id: row.int(first), user: row.text(first + 1), device: row.text(first + 2),
            provider: PushProvider(rawValue: row.text(first + 3)) ?? .webhook, token: row.text(first + 4), topic: row.optionalText(first + 5),
            sandbox: row.int(first + 6) != 0, p256dh: row.optionalText(first + 7), auth: row.optionalText(first + 8),
            updatedAt: row.int(first + 9))
    }
}

extension PostgresStore: PushQueueStore {
    // MARK: - Push queue (the delivery workers' side)
    //
    // Single statements in autocommit, never the nodes' write lock: delivery workers on every node claim from one
    // queue (FOR UPDATE SKIP LOCKED: a row another node is claiming is skipped, not waited for) without slowing the
    // batches that write messages, and without moving the write clock those batches' caches depend on.

    public func claimPushDeliveries(provider: PushProvider, limit: Int, now: Int64, leaseMilliseconds: Int64) throws -> [PushDeliveryRecord] {
        // Due targets whose head no worker holds (a target another node is claiming is skipped, not waited for); each
        // one's oldest row is its head. Rows waiting behind a head are never read, so a claim costs what it claims.
        try connection.query(
            """
            WITH picked AS (
                SELECT id FROM push_targets WHERE provider = $1 AND queue_due_at <= $3 AND (queue_leased_until IS NULL OR queue_leased_until <= $3)
                ORDER BY queue_due_at LIMIT $2 FOR UPDATE SKIP LOCKED),
            leased AS (
                UPDATE push_targets p SET queue_leased_until = $3 + $4 FROM picked WHERE p.id = picked.id RETURNING p.id),
            heads AS (
                SELECT DISTINCT ON (c.target_id) c.id, c.leased_until AS previous_lease
                FROM push_deliveries c JOIN leased ON c.target_id = leased.id ORDER BY c.target_id, c.id)
            UPDATE push_deliveries d SET leased_until = $3 + $4, attempts = d.attempts + 1,
                -- A lease still set on the head ran out with no outcome: the last claim's worker died handling it.
                lapsed_claims = CASE WHEN d.leased_until IS NULL THEN 0 ELSE d.lapsed_claims + 1 END
            FROM heads, push_targets t
            WHERE d.id = heads.id AND t.id = d.target_id
            RETURNING \(Self.deliveryColumns), \(Self.targetColumns)
            """,
            .text(provider.rawValue), .int(Int64(limit)), .int(now), .int(leaseMilliseconds),
            row: { row in Self.delivery(row) }
        ).sorted { $0.id < $1.id }
    }

    public func completePushDelivery(id: Int64) throws {
        try removeHead(id: id)
    }

    public func retryPushDelivery(id: Int64, at: Int64) throws {
        try connection.execute(
            """
            WITH moved AS (UPDATE push_deliveries SET next_attempt_at = $2, leased_until = NULL WHERE id = $1 RETURNING target_id)
            UPDATE push_targets SET queue_leased_until = NULL,
                queue_due_at = (SELECT CASE WHEN min(d.id) = $1 THEN $2 ELSE (SELECT e.next_attempt_at FROM push_deliveries e
                    WHERE e.target_id = push_targets.id ORDER BY e.id LIMIT 1) END FROM push_deliveries d WHERE d.target_id = push_targets.id)
            WHERE id IN (SELECT target_id FROM moved)
            """, .int(id), .int(at))
    }

    public func deferPushDelivery(id: Int64, at: Int64) throws {
        // As retryPushDelivery, with the claim's attempt given back.
        try connection.execute(
            """
            WITH moved AS (UPDATE push_deliveries SET next_attempt_at = $2, leased_until = NULL, attempts = GREATEST(attempts - 1, 0) WHERE id = $1
                RETURNING target_id)
            UPDATE push_targets SET queue_leased_until = NULL,
                queue_due_at = (SELECT CASE WHEN min(d.id) = $1 THEN $2 ELSE (SELECT e.next_attempt_at FROM push_deliveries e
                    WHERE e.target_id = push_targets.id ORDER BY e.id LIMIT 1) END FROM push_deliveries d WHERE d.target_id = push_targets.id)
            WHERE id IN (SELECT target_id FROM moved)
            """, .int(id), .int(at))
    }

    public func dropPushDelivery(id: Int64) throws {
        try removeHead(id: id)
    }

    /// The row goes, and its target's next row (if any) becomes the head. One statement: the CTE's DELETE is not seen
    /// by the UPDATE's subquery (same snapshot), so the next head is read past the deleted id.
    private func removeHead(id: Int64) throws {
        try connection.execute(
            """
            WITH removed AS (DELETE FROM push_deliveries WHERE id = $1 RETURNING target_id)
            UPDATE push_targets SET queue_leased_until = NULL,
                queue_due_at = (SELECT d.next_attempt_at FROM push_deliveries d WHERE d.target_id = push_targets.id AND d.id <> $1 ORDER BY d.id LIMIT 1)
            WHERE id IN (SELECT target_id FROM removed)
            """, .int(id))
    }

    public func removePushTarget(id: Int64, registeredAt: Int64) throws {
        try connection.execute("DELETE FROM push_targets WHERE id = $1 AND updated_at <= $2", .int(id), .int(registeredAt))
    }

    public func pushQueueDepth() throws -> Int {
        Int(try connection.scalar("SELECT count(*) FROM push_deliveries") ?? 0)
    }

    public func nextPushAttempt() throws -> Int64? {
        try connection.scalar(
            "SELECT min(greatest(queue_due_at, coalesce(queue_leased_until, 0))) FROM push_targets WHERE queue_due_at IS NOT NULL")
    }

    /// A claim's columns: `heads.previous_lease` is the claim statement's own (the lease before it set a new one).
    static let deliveryColumns =
        "d.id, d.kind, d.conversation, d.message, d.notification, d.sender, d.title, d.body, d.url, d.badge, d.created_at, d.expires_at, d.attempts, "
        + "d.quiet, d.mentioned, d.reference, d.lapsed_claims, heads.previous_lease"

    static func delivery(_ row: PGRow) -> PushDeliveryRecord {
        var delivery = PushDeliveryRecord(
            id: row.int(0), target: pushTarget(row, from: 18), kind: PushDeliveryKind(rawValue: row.text(1)) ?? .message,
            conversation: row.optionalText(2), message: row.optionalText(3), notification: row.optionalText(4), sender: row.optionalText(5),
            title: row.text(6), body: row.text(7), url: row.optionalText(8), badge: Int(row.int(9)), createdAt: row.int(10),
            expiresAt: row.int(11), attempts: Int(row.int(12)))
        delivery.quiet = row.int(13) != 0  // N3
        delivery.mentioned = row.int(14) != 0  // N2
        delivery.reference = row.optionalText(15)
        delivery.lapsedClaims = Int(row.int(16))
        delivery.previousLeaseEnd = row.optionalInt(17)  // the lease as it was before this claim (claims only)
        return delivery
    }
}
