import HeraldStoreProtocol
extension SQLiteStore {
    // MARK: - Event log (R3)

    public func appendEvent(user: String, payload: [UInt8], now: Int64) throws -> Int64 {
        try appendEvent(users: [user], payload: payload, now: now).first ?? 0
    }

    /// Stores `payload` once in `event_bodies` and hands each user the next seq of their stream from memory
    /// (``StreamCache``). No stream row is written here: each user's newest run is written once per transaction,
    /// before COMMIT, so per recipient an event costs a dictionary update, not a B-tree insert.
    public func appendEvent(users: [String], payload: [UInt8], now: Int64) throws -> [Int64] {
        guard !users.isEmpty else { return [] }
        return try transaction {
            try connection.execute("INSERT INTO event_bodies (created_at, payload) VALUES (?, ?)", .int(now), .blob(payload))
            let body = connection.lastInsertRowID
            // Cached after a user's first event; loaded from the file once otherwise.
            if let seqs = try streams.append(users, body: body) { return seqs }
            for user in users { _ = try cachedStream(of: user) }
            guard let seqs = try streams.append(users, body: body) else {
                throw StoreError(kind: .other, message: "the streams of \(users.count) users could not be cached")
            }
            return seqs
        }
    }

    public func events(user: String, after seq: Int64, limit: Int) throws -> [StoredEvent] {
        guard limit > 0 else { return [] }
        try writePendingRuns(of: user)
        // The run holding `after` (the newest starting at or before it) and every later one; each run's bodies are a
        // rowid range of event_bodies, so this is one index range on stream_runs and one rowid range per run.
        return try connection.query(
            """
            SELECT r.first_seq + (b.id - r.first_body) AS seq, b.payload, b.created_at
            FROM stream_runs r JOIN event_bodies b ON b.id BETWEEN r.first_body AND r.first_body + r.count - 1
            WHERE r.user_id = ?1
              AND r.first_seq >= coalesce((SELECT max(first_seq) FROM stream_runs WHERE user_id = ?1 AND first_seq <= ?2), ?2)
              AND r.first_seq + (b.id - r.first_body) > ?2
            ORDER BY r.first_seq, b.id LIMIT ?3
            """,
            .text(user), .int(seq), .int(Int64(limit))
        ) { row in StoredEvent(seq: row.int(0), payload: row.blob(1), createdAt: row.int(2)) }
    }

    public func latestSeq(user: String) throws -> Int64 {
        try cachedStream(of: user).head
    }

    public func oldestRetainedSeq(user: String) throws -> Int64 {
        try snapshot {
            try writePendingRuns(of: user)
            if let oldest = try connection.scalar("SELECT min(first_seq) FROM stream_runs WHERE user_id = ?", .text(user)) { return oldest }
            let latest = try latestSeq(user: user)
            return latest == .max ? .max : latest + 1  // a head read from the file may be at the very end
        }
    }

    /// Deletes the stream entries of every event stored before the first one created at or after `cutoff` (the
    /// oldest events, by storage order, so a clock stepping back can never cut a hole in the middle of a stream),
    /// keeping each user's newest `keepAtLeast`, then the bodies nothing refers to any more.
    @discardableResult
    public func pruneEvents(olderThan cutoff: Int64, keepAtLeast: Int) throws -> Int {
        try transaction {
            try writeDirtyStreams()
            // Bodies are appended in time order; the first body that is not old ends the prefix that may go.
            let lastOld: Int64
            if let firstKept = try connection.scalar("SELECT id FROM event_bodies WHERE created_at >= ? ORDER BY id LIMIT 1", .int(cutoff)) {
                lastOld = firstKept > .min ? firstKept - 1 : .min
            } else {
                lastOld = try connection.scalar("SELECT max(id) FROM event_bodies") ?? 0
            }
            let keep = Int64(max(keepAtLeast, 0))
            let oldRuns = try connection.query(
                "SELECT user_id, first_seq, first_body, count FROM stream_runs WHERE first_body <= ?", .int(lastOld)
            ) { row in (user: row.text(0), run: StreamRun(firstSeq: row.int(1), firstBody: row.int(2), count: row.int(3))) }
            var deleted = 0
            var stillReferenced: [ClosedRange<Int64>] = []
            var headsWritten: Set<String> = []
            for (user, run) in oldRuns {
                guard run.lastSeq != nil, let lastBody = run.lastBody else {
                    throw StoreError(kind: .corrupt, message: "\(user)'s stream has a run of \(run.count) events")
                }
                let head = try cachedStream(of: user).head
                let (lastToDrop, below) = head.subtractingReportingOverflow(keep)
                let drop = below ? 0 : run.prefixCount(throughSeq: lastToDrop, throughBody: lastOld)
                guard drop > 0 else {
                    stillReferenced.append(run.firstBody...lastBody)
                    continue
                }
                // The head must outlive the user's last rows (R3: seqs never restart).
                if headsWritten.insert(user).inserted {
                    try connection.execute(
                        """
                        INSERT INTO event_heads (user_id, last_seq) VALUES (?, ?)
                        ON CONFLICT (user_id) DO UPDATE SET last_seq = max(last_seq, excluded.last_seq)
                        """, .text(user), .int(head))
                }
                if drop == run.count {
                    try connection.execute("DELETE FROM stream_runs WHERE user_id = ? AND first_seq = ?", .text(user), .int(run.firstSeq))
                } else {
                    try connection.execute(
                        "UPDATE stream_runs SET first_seq = ?, first_body = ?, count = ? WHERE user_id = ? AND first_seq = ?",
                        .int(run.firstSeq + drop), .int(run.firstBody + drop), .int(run.count - drop), .text(user), .int(run.firstSeq))
                    stillReferenced.append((run.firstBody + drop)...lastBody)
                }
                deleted += Int(drop)
            }
            try deleteBodies(through: lastOld, except: stillReferenced)
            // Rows moved under the cache: reload on demand (everything dirty was written above).
            streams.removeAll()
            return deleted
        }
    }

    // MARK: - Streams in memory

    /// The user's cached stream, loaded when missing. Read-only stores always ask the database, since another
    /// process may be appending.
    func cachedStream(of user: String) throws -> StreamCache.UserStream {
        if let stream = streams.stream(of: user) { return stream }
        let stream = try readStream(of: user)
        if !connection.isReadOnly { streams.load(user, stream) }
        return stream
    }

    /// The head is the later of `event_heads` (kept through pruning) and the end of the newest run.
    private func readStream(of user: String) throws -> StreamCache.UserStream {
        let saved = try connection.scalar("SELECT last_seq FROM event_heads WHERE user_id = ?", .text(user)) ?? 0
        let newest = try connection.queryFirst(
            "SELECT first_seq, first_body, count FROM stream_runs WHERE user_id = ? ORDER BY first_seq DESC LIMIT 1", .text(user)
        ) { row in StreamRun(firstSeq: row.int(0), firstBody: row.int(1), count: row.int(2)) }
        guard let run = newest else { return StreamCache.UserStream(head: saved, run: nil) }
        guard let last = run.lastSeq else { throw StoreError(kind: .corrupt, message: "\(user)'s stream has a run of \(run.count) events") }
        // A run that ends before the saved head cannot grow: the seqs after it were handed out and pruned.
        return StreamCache.UserStream(head: max(saved, last), run: last >= saved ? run : nil)
    }

    /// Writes every run that changed in the open transaction; called before COMMIT (and before pruning).
    func writeDirtyStreams() throws {
        try writeRuns(streams.pendingRows)
    }

    /// Makes the table current for one user before reading it inside a transaction (the rows are written again,
    /// unchanged or grown, at COMMIT; writing a run twice is an upsert of the same key).
    private func writePendingRuns(of user: String) throws {
        try writeRuns(streams.pendingRuns(of: user).map { (user: user, run: $0) })
    }

    /// Upserts runs, up to ``runsPerStatement`` rows a statement: a batch to a group of 1,000 writes 1,000 runs,
    /// and one statement each was a sixth of the sync thread (its lookup, binding, reset and VDBE start-up per row).
    /// Rows of one statement are applied in order, so a key written twice ends as its last row says.
    private func writeRuns(_ rows: [(user: String, run: StreamRun)]) throws(StoreError) {
        var start = 0
        while start < rows.count {
            let end = min(start + Self.runsPerStatement, rows.count)
            var values: [SQLiteValue] = []
            values.reserveCapacity((end - start) * 4)
            for (user, run) in rows[start..<end] {
                values.append(.text(user))
                values.append(.int(run.firstSeq))
                values.append(.int(run.firstBody))
                values.append(.int(run.count))
            }
            try connection.execute(Self.upsertRuns(end - start), bindings: values)
            start = end
        }
    }

    /// Most runs one upsert writes (4 values each; SQLite allows 32,766).
    static let runsPerStatement = 64

    /// The upsert of `rows` runs (the full-size one is built once).
    static func upsertRuns(_ rows: Int) -> String {
        rows == runsPerStatement ? fullUpsertRuns : upsertRunsSQL(rows)
    }

    private static let fullUpsertRuns = upsertRunsSQL(runsPerStatement)

    private static func upsertRunsSQL(_ rows: Int) -> String {
        "INSERT INTO stream_runs (user_id, first_seq, first_body, count) VALUES "
            + Array(repeating: "(?, ?, ?, ?)", count: rows).joined(separator: ", ")
            + " ON CONFLICT (user_id, first_seq) DO UPDATE SET first_body = excluded.first_body, count = excluded.count"
    }

    /// Deletes the bodies with id ≤ `last` outside the ranges still referenced, one range DELETE per gap.
    private func deleteBodies(through last: Int64, except referenced: [ClosedRange<Int64>]) throws(StoreError) {
        var from = Int64.min
        for range in referenced.sorted(by: { $0.lowerBound < $1.lowerBound }) {
            if range.lowerBound > from {
                try connection.execute("DELETE FROM event_bodies WHERE id >= ? AND id < ? AND id <= ?", .int(from), .int(range.lowerBound), .int(last))
            }
            if range.upperBound >= from { from = range.upperBound == .max ? .max : range.upperBound + 1 }
        }
        if from <= last { try connection.execute("DELETE FROM event_bodies WHERE id >= ? AND id <= ?", .int(from), .int(last)) }
    }
}
