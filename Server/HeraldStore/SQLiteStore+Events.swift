extension SQLiteStore {
    // MARK: - Event log (R3)

    public func appendEvent(user: String, payload: [UInt8], now: Int64) throws -> Int64 {
        try appendEvent(users: [user], payload: payload, now: now).first ?? 0
    }

    /// Stores `payload` once in `event_bodies` and gives each user a small stream row pointing at it, with
    /// sequence numbers from the in-memory heads (``StreamHeadCache``), written back once per user at commit.
    public func appendEvent(users: [String], payload: [UInt8], now: Int64) throws -> [Int64] {
        guard !users.isEmpty else { return [] }
        return try transaction {
            try connection.execute("INSERT INTO event_bodies (created_at, payload) VALUES (?, ?)", .int(now), .blob(payload))
            let body = connection.lastInsertRowID
            var seqs: [Int64] = []
            seqs.reserveCapacity(users.count)
            for user in users {
                let head = try cachedHead(of: user)
                // The head comes from the file: at Int64.max there is no next seq (and `+ 1` would trap).
                guard head < .max else { throw StoreError(kind: .corrupt, message: "\(user)'s stream is at the last sequence number") }
                let seq = heads.advance(user, from: head)
                try connection.execute(
                    "INSERT INTO stream_entries (user_id, seq, body_id) VALUES (?, ?, ?)", .text(user), .int(seq), .int(body))
                seqs.append(seq)
            }
            return seqs
        }
    }

    public func events(user: String, after seq: Int64, limit: Int) throws -> [StoredEvent] {
        guard limit > 0 else { return [] }
        return try connection.query(
            """
            SELECT e.seq, b.payload, b.created_at FROM stream_entries e JOIN event_bodies b ON b.id = e.body_id
            WHERE e.user_id = ? AND e.seq > ? ORDER BY e.seq LIMIT ?
            """,
            .text(user), .int(seq), .int(Int64(limit))
        ) { row in StoredEvent(seq: row.int(0), payload: row.blob(1), createdAt: row.int(2)) }
    }

    public func latestSeq(user: String) throws -> Int64 {
        try cachedHead(of: user)
    }

    public func oldestRetainedSeq(user: String) throws -> Int64 {
        try snapshot {
            if let oldest = try connection.scalar("SELECT min(seq) FROM stream_entries WHERE user_id = ?", .text(user)) { return oldest }
            let latest = try latestSeq(user: user)
            return latest == .max ? .max : latest + 1  // a head read from the file may be at the very end
        }
    }

    @discardableResult
    public func pruneEvents(olderThan cutoff: Int64, keepAtLeast: Int) throws -> Int {
        try transaction {
            // The heads in `event_heads` must be current for the "keep at least" bound.
            try writeDirtyHeads()
            let deleted = try connection.execute(
                """
                DELETE FROM stream_entries
                WHERE body_id IN (SELECT id FROM event_bodies WHERE created_at < ?)
                AND seq <= (SELECT h.last_seq FROM event_heads h WHERE h.user_id = stream_entries.user_id) - ?
                """, .int(cutoff), .int(Int64(max(keepAtLeast, 0))))
            try connection.execute(
                """
                DELETE FROM event_bodies WHERE created_at < ?
                AND NOT EXISTS (SELECT 1 FROM stream_entries e WHERE e.body_id = event_bodies.id)
                """, .int(cutoff))
            return deleted
        }
    }

    // MARK: - Stream heads

    /// The user's last handed-out seq: from memory, else from `event_heads` (0 when the user has none).
    /// Read-only stores always ask the database, since another process may be appending.
    func cachedHead(of user: String) throws -> Int64 {
        if let head = heads.head(of: user) { return head }
        let head = try connection.scalar("SELECT last_seq FROM event_heads WHERE user_id = ?", .text(user)) ?? 0
        if !connection.isReadOnly { heads.load(user, head) }
        return head
    }

    /// Writes the heads advanced in the open transaction to `event_heads` (one row per user); called before COMMIT.
    func writeDirtyHeads() throws {
        for user in heads.dirty {
            guard let head = heads.head(of: user) else { continue }
            try connection.execute(
                """
                INSERT INTO event_heads (user_id, last_seq) VALUES (?, ?)
                ON CONFLICT (user_id) DO UPDATE SET last_seq = excluded.last_seq
                """, .text(user), .int(head))
        }
    }
}
