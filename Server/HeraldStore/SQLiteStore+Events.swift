import HeraldStoreProtocol
extension SQLiteStore {
    // MARK: - Event log (R3)

    public func appendEvent(user: String, payload: [UInt8], now: Int64) throws -> Int64 {
        try appendEvent(users: [user], payload: payload, now: now).first ?? 0
    }

    /// Stores `payload` once in `event_bodies`, with its audience when it has one (`conversation`'s participants, or a
    /// single user), and hands each user the next seq of their stream from memory (``StreamCache``). No stream row is
    /// written here: a user's newest run is written at most once per transaction, before COMMIT, and not at all when
    /// it only grew by bodies with an audience (see ``StreamCache``), so per recipient an event costs an array update.
    public func appendEvent(users: [String], payload: [UInt8], now: Int64, toParticipantsOf conversation: String?) throws -> [Int64] {
        guard !users.isEmpty else { return [] }
        let audienceConversation = conversation.flatMap { RecordID.parse(RecordID.conversation, $0) }
        let audienceUser = audienceConversation == nil && users.count == 1 ? users[0] : nil
        let recorded = audienceConversation != nil || audienceUser != nil
        return try transaction {
            try connection.execute(
                "INSERT INTO event_bodies (created_at, payload, audience_conversation, audience_user) VALUES (?, ?, ?, ?)",
                .int(now), .blob(payload), audienceConversation.map { .int($0) } ?? .null, .optionalText(audienceUser))
            let body = connection.lastInsertRowID
            // Cached after a user's first event; loaded from the file once otherwise.
            if let seqs = try streams.append(users, body: body, recorded: recorded) { return seqs }
            // Loaded up to the body just stored: it is not theirs until appended below.
            for user in users { _ = try cachedStream(of: user, before: body) }
            guard let seqs = try streams.append(users, body: body, recorded: recorded) else {
                throw StoreError(kind: .other, message: "the streams of \(users.count) users could not be cached")
            }
            return seqs
        }
    }

    public func events(user: String, after seq: Int64, limit: Int) throws -> [StoredEvent] {
        guard limit > 0 else { return [] }
        try writePendingRuns(of: user)
        // The newest run's row may lag (StreamCache): its count is taken from the stream as read or cached.
        let newest = try cachedStream(of: user).run
        // The run holding `after` (the newest starting at or before it) and every later one; each run's bodies are a
        // rowid range of event_bodies, so this is one index range on stream_runs and one rowid range per run.
        return try connection.query(
            """
            SELECT r.first_seq + (b.id - r.first_body) AS seq, b.payload, b.created_at
            FROM stream_runs r JOIN event_bodies b
              ON b.id BETWEEN r.first_body AND r.first_body + (CASE WHEN r.first_seq = ?4 THEN ?5 ELSE r.count END) - 1
            WHERE r.user_id = ?1
              AND r.first_seq >= coalesce((SELECT max(first_seq) FROM stream_runs WHERE user_id = ?1 AND first_seq <= ?2), ?2)
              AND r.first_seq + (b.id - r.first_body) > ?2
            ORDER BY r.first_seq, b.id LIMIT ?3
            """,
            .text(user), .int(seq), .int(Int64(limit)), newest.map { .int($0.firstSeq) } ?? .null, .int(newest?.count ?? 0)
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
        // Every row as it stands first, lagging ones too, committed on their own: the runs below decide which bodies are
        // still referenced, and the cache is dropped after, so a failed prune must not take those rows back with it.
        try writeLaggingRuns()
        return try transaction {
            try writeRuns(streams.rowsToWrite(flush: true))
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
    func cachedStream(of user: String, before body: Int64 = .max) throws -> StreamCache.UserStream {
        if let stream = streams.stream(of: user) { return stream }
        let stream = try readStream(of: user, before: body)
        if !connection.isReadOnly { streams.load(user, stream) }
        return stream
    }

    /// The head is the later of `event_heads` (kept through pruning) and the end of the newest run, which goes on past
    /// its row through every following body that went to the user (a row that lags, see ``StreamCache``), up to `limit`
    /// (a body being appended is not in the stream yet).
    private func readStream(of user: String, before limit: Int64 = .max) throws -> StreamCache.UserStream {
        let saved = try connection.scalar("SELECT last_seq FROM event_heads WHERE user_id = ?", .text(user)) ?? 0
        let newest = try connection.queryFirst(
            "SELECT first_seq, first_body, count FROM stream_runs WHERE user_id = ? ORDER BY first_seq DESC LIMIT 1", .text(user)
        ) { row in StreamRun(firstSeq: row.int(0), firstBody: row.int(1), count: row.int(2)) }
        guard var run = newest else { return StreamCache.UserStream(head: saved, run: nil) }
        guard let last = run.lastSeq, let lastBody = run.lastBody else {
            throw StoreError(kind: .corrupt, message: "\(user)'s stream has a run of \(run.count) events")
        }
        // A run that ends before the saved head cannot grow: the seqs after it were handed out and pruned.
        guard last >= saved else { return StreamCache.UserStream(head: saved, run: nil) }
        let stored = run.count
        run.count += try bodiesFollowing(lastBody, to: user, before: limit)
        guard let head = run.lastSeq else { throw StoreError(kind: .corrupt, message: "\(user)'s stream runs past the last sequence number") }
        return StreamCache.UserStream(head: head, run: run, storedCount: stored)
    }

    /// SQL true when the event body `b` went to `user` (an SQL expression) by its recorded audience: it names the user,
    /// or a conversation the user is a participant of; NULL or false otherwise.
    private static func bodyWent(to user: String) -> String {
        "(b.audience_user = \(user) OR EXISTS (SELECT 1 FROM participants p WHERE p.conversation_id = b.audience_conversation AND p.user_id = \(user)))"
    }

    /// How many bodies right after `body` (consecutive ids) went to `user` by their recorded audience: the events a
    /// lagging row of the user's newest run does not count yet. A body of another audience, or none, ends them.
    private func bodiesFollowing(_ body: Int64, to user: String, before limit: Int64) throws -> Int64 {
        var found: Int64 = 0
        // Usually none (the row is current): the first look reads one body.
        var page: Int64 = 1
        while true {
            let first = body + found + 1
            let mine = try connection.query(
                """
                SELECT b.id, coalesce(\(Self.bodyWent(to: "?2")), 0)
                FROM event_bodies b WHERE b.id >= ?1 AND b.id < ?4 ORDER BY b.id LIMIT ?3
                """,
                .int(first), .text(user), .int(page), .int(limit)
            ) { row in (id: row.int(0), mine: row.int(1) != 0) }
            for (offset, entry) in mine.enumerated() {
                guard entry.id == first + Int64(offset), entry.mine else { return found }
                found += 1
            }
            if Int64(mine.count) < page { return found }
            page = 256
        }
    }

    /// Writes the rows COMMIT needs (``StreamCache/rowsToWrite(flush:)``), every lagging one when a flush is due;
    /// called before COMMIT. Returns whether it flushed.
    func writeDirtyStreams() throws -> Bool {
        let flush = streams.flushDue
        try writeRuns(streams.rowsToWrite(flush: flush))
        return flush
    }

    /// Writes every lagging row (before pruning, at ``close()``): the file is then current without following bodies.
    /// Inside a transaction the rows are written and stay lagging in the cache (a rollback may still take them back).
    func writeLaggingRuns() throws {
        guard !streams.lagging.isEmpty else { return }
        if isInTransaction { return try writeRuns(streams.laggingRows) }
        try transaction { try writeRuns(streams.laggingRows) }
        streams.markAllWritten()
    }

    /// At open: the rows a process left lagging when it stopped without ``close()`` (a crash, SIGKILL) are read to
    /// their runs' ends and written, so pruning and every reader see each run as it is. One pass over the users' newest
    /// runs finds them (the body right after such a row went to its user); a row that is current costs one lookup.
    func repairLaggingRuns() throws(StoreError) {
        guard !connection.isReadOnly else { return }
        let behind = try connection.query(
            """
            SELECT r.user_id FROM stream_runs r JOIN event_bodies b ON b.id = r.first_body + r.count
            WHERE r.first_seq = (SELECT max(first_seq) FROM stream_runs WHERE user_id = r.user_id) AND \(Self.bodyWent(to: "r.user_id"))
            """
        ) { row in row.text(0) }
        guard !behind.isEmpty else { return }
        do {
            try transaction {
                let rows = try behind.compactMap { user in try readStream(of: user).run.map { (user: user, run: $0) } }
                try writeRuns(rows)
            }
        } catch let error as StoreError {
            throw error
        } catch {
            throw StoreError(kind: .other, message: "repairing stream runs: \(error)")
        }
    }

    /// Makes the table current for one user before reading it inside a transaction (the rows are written again,
    /// unchanged or grown, at COMMIT; writing a run twice is an upsert of the same key).
    private func writePendingRuns(of user: String) throws {
        try writeRuns(streams.pendingRuns(of: user).map { (user: user, run: $0) })
    }

    /// Writes the user's newest run now if its row lags: before the user stops being a participant of a conversation,
    /// whose later bodies no longer name them (reading the file must not follow those).
    func writeLaggingRun(of user: String) throws {
        if let run = streams.laggingRun(of: user) { try writeRuns([(user, run)]) }
        try writePendingRuns(of: user)
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
