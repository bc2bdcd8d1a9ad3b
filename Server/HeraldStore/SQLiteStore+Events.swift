extension SQLiteStore {
    // MARK: - Event log (R3)

    public func appendEvent(user: String, payload: [UInt8], now: Int64) throws -> Int64 {
        try transaction {
            // The head row, not max(seq), hands out numbers: it survives pruning, so seqs never repeat.
            let seq = try connection.scalar(
                """
                INSERT INTO event_heads (user_id, last_seq) VALUES (?, 1)
                ON CONFLICT (user_id) DO UPDATE SET last_seq = last_seq + 1 RETURNING last_seq
                """, .text(user)) ?? 1
            try connection.execute(
                "INSERT INTO events (user_id, seq, created_at, payload) VALUES (?, ?, ?, ?)", .text(user), .int(seq), .int(now), .blob(payload))
            return seq
        }
    }

    public func events(user: String, after seq: Int64, limit: Int) throws -> [StoredEvent] {
        guard limit > 0 else { return [] }
        return try connection.query(
            "SELECT seq, payload, created_at FROM events WHERE user_id = ? AND seq > ? ORDER BY seq LIMIT ?",
            .text(user), .int(seq), .int(Int64(limit))
        ) { row in StoredEvent(seq: row.int(0), payload: row.blob(1), createdAt: row.int(2)) }
    }

    public func latestSeq(user: String) throws -> Int64 {
        try connection.scalar("SELECT last_seq FROM event_heads WHERE user_id = ?", .text(user)) ?? 0
    }

    public func oldestRetainedSeq(user: String) throws -> Int64 {
        try snapshot {
            if let oldest = try connection.scalar("SELECT min(seq) FROM events WHERE user_id = ?", .text(user)) { return oldest }
            return try latestSeq(user: user) + 1
        }
    }

    @discardableResult
    public func pruneEvents(olderThan cutoff: Int64, keepAtLeast: Int) throws -> Int {
        try transaction {
            try connection.execute(
                """
                DELETE FROM events WHERE created_at < ?
                AND seq <= (SELECT h.last_seq FROM event_heads h WHERE h.user_id = events.user_id) - ?
                """, .int(cutoff), .int(Int64(max(keepAtLeast, 0))))
        }
    }
}
