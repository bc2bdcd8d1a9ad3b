import HeraldStore

extension PostgresStore: ClusterPresenceStore {
    // MARK: - Cluster presence (P1-P5 across nodes)

    /// How long wake-up rows are kept for nodes catching up (``PostgresStreamListener``).
    public static let wakeUpRetentionMilliseconds: Int64 = 600_000

    public func joinCluster(node: String) throws {
        clusterNode = node
        try connection.execute(
            """
            INSERT INTO cluster_nodes (node_id, heartbeat_at) VALUES ($1, \(Self.databaseNow))
            ON CONFLICT (node_id) DO UPDATE SET heartbeat_at = excluded.heartbeat_at
            """, .text(node))
    }

    public func leaveCluster(node: String) throws {
        try transaction {
            try connection.execute("DELETE FROM device_presence WHERE node_id = $1", .text(node))
            try connection.execute("DELETE FROM cluster_nodes WHERE node_id = $1", .text(node))
        }
    }

    /// Outside the nodes' write lock: these rows are no writer's memory, so a heartbeat neither waits for a writer's
    /// commit nor holds up the next one, and the other nodes' memory of heads stays current.
    public func heartbeat(node: String, pruneSilentMilliseconds: Int64) throws {
        try transactionWithoutWriteLock {
            try connection.execute(
                """
                INSERT INTO cluster_nodes (node_id, heartbeat_at) VALUES ($1, \(Self.databaseNow))
                ON CONFLICT (node_id) DO UPDATE SET heartbeat_at = excluded.heartbeat_at
                """, .text(node))
            // Wake-ups are read within moments of their NOTIFY, or by a node catching up after its LISTEN connection
            // came back; ten minutes covers any outage worth catching up from.
            try connection.execute("DELETE FROM stream_wakeups WHERE created_at < \(Self.databaseNow) - $1", .int(Self.wakeUpRetentionMilliseconds))
            // A node that died without cleaning up: its rows are already ignored; now they go.
            try connection.execute(
                """
                WITH gone AS (DELETE FROM cluster_nodes WHERE heartbeat_at < \(Self.databaseNow) - $1 RETURNING node_id)
                DELETE FROM device_presence WHERE node_id IN (SELECT node_id FROM gone)
                """, .int(max(pruneSilentMilliseconds, 0)))
        }
    }

    /// How late a heartbeat may be while the node's LISTEN session is gone before its pushes are taken over: shorter
    /// than for presence, as a push in its grace period is due within seconds; a node alive heartbeats every second,
    /// and one misjudged at worst sends a push its taker sends too.
    static let takeoverListenerGoneGraceMilliseconds: Int64 = 1_500

    /// How late the heartbeat of a node whose LISTEN session is still connected must be before it is taken over: such a
    /// node is alive and slow (a long batch, a machine out of CPU), and pushes it still holds would be sent twice if
    /// another node took them over. Only a node stuck for this long (a stopped process whose socket stays open) is.
    static let takeoverListenerAliveGraceMilliseconds: Int64 = 60_000

    public func takeOverDeadNodes(node: String, silentMilliseconds: Int64) throws -> [DeadNode] {
        // Concurrent claims of one row serialise on its row lock, and the loser re-checks `taken_over_by` after the
        // winner commits: each dead node goes to one survivor. Dead as `presence` judges it: silent too long, or its
        // LISTEN session gone with the heartbeat a little late (a killed node, seconds after its death). A node whose
        // LISTEN session is still there is alive, however late its heartbeat, until it has been silent for a minute.
        var taken: [DeadNode] = []
        try transactionWithoutWriteLock {
            taken = try connection.query(
                """
                UPDATE cluster_nodes n SET taken_over_by = $1
                FROM (SELECT n.node_id, n.listener_pid IS NOT NULL
                             AND EXISTS (SELECT 1 FROM pg_stat_activity a WHERE a.pid = n.listener_pid) AS listening
                      FROM cluster_nodes n) l
                WHERE l.node_id = n.node_id AND n.node_id <> $1 AND n.taken_over_by IS NULL
                  AND CASE WHEN l.listening THEN n.heartbeat_at < \(Self.databaseNow) - $4
                           WHEN n.listener_pid IS NOT NULL THEN n.heartbeat_at < \(Self.databaseNow) - $3
                           ELSE n.heartbeat_at < \(Self.databaseNow) - $2 END
                RETURNING n.node_id, n.heartbeat_at
                """, .text(node), .int(max(silentMilliseconds, 0)), .int(Self.takeoverListenerGoneGraceMilliseconds),
                .int(max(silentMilliseconds, Self.takeoverListenerAliveGraceMilliseconds))
            ) { row in DeadNode(node: row.text(0), lastHeartbeat: row.int(1)) }
        }
        return taken
    }

    /// Read from the node's wake-up rows (which name the event bodies each of its transactions appended): a message
    /// records no node, and the takeover is rare enough that parsing a few seconds of one node's bodies costs nothing
    /// on the hot path.
    public func messagesCommitted(by node: String, since: Int64) throws -> [CommittedMessage] {
        try connection.query(Self.committedMessagesQuery, .text(node), .int(since)) { row in
            CommittedMessage(message: row.text(0), pushedUsers: Set(row.textArray(1) ?? []))
        }
    }

    /// The messages a node's wake-ups name, since a time, with who has a push of each. Its bodies are read run by run
    /// through the primary key (`LATERAL`, not flattened): joined on a range the planner scanned every body stored and
    /// parsed it as JSON (4-6 s at 15,000 bodies, on the sync thread of the node taking over).
    static let committedMessagesQuery = """
        WITH runs AS MATERIALIZED (
            SELECT DISTINCT r.first_body, r.n
            FROM stream_wakeups w CROSS JOIN LATERAL unnest(w.first_bodies, w.counts) AS r (first_body, n)
            WHERE w.node_id = $1 AND w.created_at >= $2
        ), bodies AS MATERIALIZED (
            SELECT DISTINCT b.id, convert_from(b.payload, 'UTF8')::jsonb AS body
            FROM runs r CROSS JOIN LATERAL (
                SELECT e.id, e.payload FROM event_bodies e WHERE e.id BETWEEN r.first_body AND r.first_body + r.n - 1 OFFSET 0
            ) b
        ), ids AS (
            SELECT DISTINCT body -> 'message' ->> 'id' AS id FROM bodies
            WHERE body ->> 'event' = 'message' AND body -> 'message' ->> 'id' ~ '^m[1-9][0-9]{0,17}$'
        )
        SELECT ids.id, coalesce((SELECT array_agg(DISTINCT p.user_id::text) FROM pushes p
                                 WHERE p.message_id = substr(ids.id, 2)::bigint), '{}')
        FROM ids ORDER BY substr(ids.id, 2)::bigint
        """

    public func writePresence(node: String, departed: [Int64], present: [DevicePresence]) throws {
        guard !departed.isEmpty || !present.isEmpty else { return }
        try transactionWithoutWriteLock {
            if !departed.isEmpty {
                try connection.execute("DELETE FROM device_presence WHERE node_id = $1 AND device_key = ANY ($2)", .text(node), .intArray(departed))
            }
            guard !present.isEmpty else { return }
            try connection.execute(
                """
                INSERT INTO device_presence (node_id, device_key, user_id, device, foreground, viewing)
                SELECT $1, p.device_key, p.user_id, p.device, p.foreground <> 0, p.viewing
                FROM unnest($2::bigint[], $3::text[], $4::text[], $5::bigint[], $6::text[]) AS p (device_key, user_id, device, foreground, viewing)
                ON CONFLICT (node_id, device_key) DO UPDATE
                SET user_id = excluded.user_id, device = excluded.device, foreground = excluded.foreground, viewing = excluded.viewing
                """,
                .text(node), .intArray(present.map(\.deviceKey)), .textArray(present.map(\.user)), .textArray(present.map(\.device)),
                .intArray(present.map { $0.foreground ? 1 : 0 }), .optionalTextArray(present.map(\.viewing)))
        }
    }

    /// How late a heartbeat may be while the node's LISTEN session is gone before the node counts as dead: a node that
    /// is alive heartbeats every second even while its listener reconnects, and a killed one loses that session at once.
    public static let listenerGoneGraceMilliseconds: Int64 = 2_500

    /// Each node's liveness is judged once per call (`live`), and the users are looked up one by one through the
    /// `user_id` index: with the liveness test per row and `user_id = ANY` over the few thousand recipients of a batch
    /// of chat, each call took ~30 ms of PostgreSQL CPU.
    public func presence(users: [String], aliveMilliseconds: Int64, excluding node: String) throws -> [DevicePresence] {
        guard !users.isEmpty else { return [] }
        return try connection.query(
            """
            WITH live AS (
                SELECT n.node_id FROM cluster_nodes n
                WHERE n.node_id <> $2 AND n.heartbeat_at >= \(Self.databaseNow) - $3
                  AND (n.listener_pid IS NULL OR n.heartbeat_at >= \(Self.databaseNow) - $4
                       OR n.listener_pid IN (SELECT a.pid FROM pg_stat_activity a))
            )
            SELECT p.node_id, p.device_key, p.user_id, p.device, p.foreground::int::bigint, p.viewing
            FROM (SELECT DISTINCT u FROM unnest($1::text[]) AS u) AS wanted
            JOIN device_presence p ON p.user_id = wanted.u JOIN live n ON n.node_id = p.node_id
            ORDER BY p.user_id, p.node_id, p.device_key
            """, .textArray(users), .text(node), .int(max(aliveMilliseconds, 0)), .int(Self.listenerGoneGraceMilliseconds)
        ) { row in
            DevicePresence(
                node: row.text(0), deviceKey: row.int(1), user: row.text(2), device: row.text(3), foreground: row.int(4) != 0,
                viewing: row.optionalText(5))
        }
    }

    public func enqueuePush(
        user: String, device: String, deviceKey: Int64, conversation: String, message: String, sender: String,
        preview: String, url: String, now: Int64
    ) throws -> Int64 {
        try insertPush(
            user: user, device: device, node: clusterNode, deviceKey: deviceKey, conversation: conversation, message: message,
            sender: sender, preview: preview, url: url, now: now)
    }

    public func requestPush(node: String, deviceKey: Int64, message: String) throws {
        guard let messageKey = RecordID.parse(RecordID.message, message) else {
            throw StoreError(kind: .notFound, message: "unknown message \(message)")
        }
        // Carried by this transaction's wake-up row: delivered once it commits, and found again by a node whose LISTEN
        // connection was down at that moment.
        try signal("push \(node) \(deviceKey) \(messageKey)")
    }

    public func requestBellPush(node: String, deviceKey: Int64, notification: String) throws {
        guard let notificationKey = RecordID.parse(RecordID.notification, notification) else {
            throw StoreError(kind: .notFound, message: "unknown notification \(notification)")
        }
        try signal("bell \(node) \(deviceKey) \(notificationKey)")
    }

    public func claimPublished(message: String, node: String, now: Int64) throws -> Bool {
        guard let messageKey = RecordID.parse(RecordID.message, message) else { return false }
        return try connection.execute(
            "INSERT INTO published_claims (message_id, node_id, claimed_at) VALUES ($1, $2, $3) ON CONFLICT (message_id) DO NOTHING",
            .int(messageKey), .text(node), .int(now)) == 1
    }

    /// Adds a request for other nodes to the open transaction's wake-up (or to a transaction of its own).
    func signal(_ text: String) throws {
        if connection.transactionDepth > 0 {
            pending.addSignal(text)
        } else {
            try transaction { pending.addSignal(text) }
        }
    }
}
