import HeraldStore

extension PostgresStore {
    // MARK: - Event log (R3)

    public func appendEvent(user: String, payload: [UInt8], now: Int64) throws -> Int64 {
        // One statement, atomic on its own: bump the user's counter row (locked until commit, so writers of
        // one user are serialised across nodes), store the event under that number, and queue a notification
        // that PostgreSQL delivers to every listening node only if the transaction commits.
        guard
            let seq = try connection.scalar(
                """
                WITH head AS (
                    INSERT INTO event_heads (user_id, last_seq) VALUES ($1, 1)
                    ON CONFLICT (user_id) DO UPDATE SET last_seq = event_heads.last_seq + 1 RETURNING last_seq
                ), stored AS (
                    INSERT INTO events (user_id, seq, created_at, payload) SELECT $1, last_seq, $2, $3 FROM head
                )
                SELECT last_seq, pg_notify('\(Self.streamChannel)', last_seq::text || ' ' || $1) FROM head
                """, .text(user), .int(now), .blob(payload))
        else { throw StoreError(kind: .other, message: "appending to \(user)'s stream returned no sequence") }
        return seq
    }

    public func events(user: String, after seq: Int64, limit: Int) throws -> [StoredEvent] {
        guard limit > 0 else { return [] }
        return try connection.query(
            "SELECT seq, payload, created_at FROM events WHERE user_id = $1 AND seq > $2 ORDER BY seq LIMIT $3",
            .text(user), .int(seq), .int(Int64(limit))
        ) { row in StoredEvent(seq: row.int(0), payload: row.blob(1), createdAt: row.int(2)) }
    }

    public func latestSeq(user: String) throws -> Int64 {
        try connection.scalar("SELECT last_seq FROM event_heads WHERE user_id = $1", .text(user)) ?? 0
    }

    public func oldestRetainedSeq(user: String) throws -> Int64 {
        // One statement is one snapshot: the minimum and the head agree.
        try connection.scalar(
            """
            SELECT coalesce((SELECT min(seq) FROM events WHERE user_id = $1),
                            (SELECT last_seq FROM event_heads WHERE user_id = $1) + 1, 1)
            """, .text(user)) ?? 1
    }

    @discardableResult
    public func pruneEvents(olderThan cutoff: Int64, keepAtLeast: Int) throws -> Int {
        try connection.execute(
            """
            DELETE FROM events e USING event_heads h
            WHERE h.user_id = e.user_id AND e.created_at < $1 AND e.seq <= h.last_seq - $2
            """, .int(cutoff), .int(Int64(max(keepAtLeast, 0))))
    }
}
