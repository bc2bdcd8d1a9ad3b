import HeraldStore

extension PostgresStore {
    // MARK: - Event log (R3)

    public func appendEvent(user: String, payload: [UInt8], now: Int64) throws -> Int64 {
        try appendEvent(users: [user], payload: payload, now: now).first ?? 0
    }

    /// Hands each user the next seq of their stream from the transaction's heads (``PendingStreams``); the
    /// body and the runs are written once per transaction, just before COMMIT. After the first event of a
    /// batch for a group, another one costs no round trip at all. Every run is written at COMMIT, so the audience
    /// (`conversation`) is not needed to read a stream back.
    public func appendEvent(users: [String], payload: [UInt8], now: Int64, toParticipantsOf _: String?) throws -> [Int64] {
        guard !users.isEmpty else { return [] }
        return try joiningTransaction {
            let body = try nextBodyID()
            // Checked before anything changes: there is no savepoint of our own to undo a half-done append.
            guard try loadHeads(users) < .max - Int64(users.count) else {
                throw StoreError(kind: .other, message: "a stream of \(users.count) users is at its end")
            }
            pending.addBody(id: body, createdAt: now, payload: payload)
            var seqs: [Int64] = []
            seqs.reserveCapacity(users.count)
            pending.append(users, body: body, at: now, seqs: &seqs)
            return seqs
        }
    }

    public func events(user: String, after seq: Int64, limit: Int) throws -> [StoredEvent] {
        guard limit > 0 else { return [] }
        try writePendingStreams(of: user)
        // The run holding `after` (the newest starting at or before it) and every later one; each run's bodies are an
        // id range of event_bodies.
        return try connection.query(
            """
            SELECT r.first_seq + (b.id - r.first_body), b.payload, b.created_at
            FROM stream_runs r JOIN event_bodies b ON b.id BETWEEN r.first_body AND r.first_body + r.count - 1
            WHERE r.user_id = $1
              AND r.first_seq >= coalesce((SELECT max(first_seq) FROM stream_runs WHERE user_id = $1 AND first_seq <= $2), $2)
              AND r.first_seq + (b.id - r.first_body) > $2
            ORDER BY r.first_seq, b.id LIMIT $3
            """,
            .text(user), .int(seq), .int(Int64(limit))
        ) { row in StoredEvent(seq: row.int(0), payload: row.blob(1), createdAt: row.int(2)) }
    }

    public func latestSeq(user: String) throws -> Int64 {
        if let head = pending.head(of: user) { return head }
        return try connection.scalar("SELECT \(Self.derivedHead("$1"))", .text(user)) ?? 0
    }

    /// A user's head as SQL: the end of their newest run, or the head saved in `event_heads` when every run of theirs
    /// was pruned (R3: seqs never restart). The batch flush writes runs only, so a head costs no row of its own.
    static func derivedHead(_ user: String) -> String {
        """
        greatest((SELECT last_seq FROM event_heads WHERE user_id = \(user)),
                 (SELECT first_seq + count - 1 FROM stream_runs WHERE user_id = \(user) ORDER BY first_seq DESC LIMIT 1), 0)
        """
    }

    public func oldestRetainedSeq(user: String) throws -> Int64 {
        try writePendingStreams(of: user)
        // One statement is one snapshot: the minimum and the head agree.
        return try connection.scalar(
            """
            SELECT coalesce((SELECT min(first_seq) FROM stream_runs WHERE user_id = $1), \(Self.derivedHead("$1")) + 1)
            """, .text(user)) ?? 1
    }

    /// Deletes the runs whose every event is older than `cutoff` and not among the user's newest `keepAtLeast`, then
    /// the old bodies no remaining run refers to. The heads stay (R3: seqs never restart).
    @discardableResult
    public func pruneEvents(olderThan cutoff: Int64, keepAtLeast: Int) throws -> Int {
        try transaction {
            // The heads of users who may lose their newest run are saved first.
            try connection.execute(
                """
                INSERT INTO event_heads (user_id, last_seq)
                SELECT r.user_id, max(r.first_seq + r.count - 1) FROM stream_runs r
                WHERE r.user_id IN (SELECT user_id FROM stream_runs WHERE created_at < $1) GROUP BY r.user_id
                ON CONFLICT (user_id) DO UPDATE SET last_seq = greatest(event_heads.last_seq, excluded.last_seq)
                """, .int(cutoff))
            let deleted = try connection.scalar(
                """
                WITH gone AS (
                    DELETE FROM stream_runs r USING event_heads h
                    WHERE h.user_id = r.user_id AND r.created_at < $1 AND r.first_seq + r.count - 1 <= h.last_seq - $2
                    RETURNING r.count
                )
                SELECT coalesce(sum(count), 0)::bigint FROM gone
                """, .int(cutoff), .int(Int64(max(keepAtLeast, 0)))) ?? 0
            try connection.execute(
                """
                WITH kept AS (
                    SELECT first_body AS low, first_body + count - 1 AS high FROM stream_runs
                    WHERE first_body <= (SELECT max(id) FROM event_bodies WHERE created_at < $1)
                )
                DELETE FROM event_bodies b
                WHERE b.created_at < $1 AND NOT EXISTS (SELECT 1 FROM kept WHERE b.id BETWEEN kept.low AND kept.high)
                """, .int(cutoff))
            return Int(deleted)
        }
    }

    // MARK: - The transaction's streams

    /// How many body ids one round trip reserves. Ids a node reserved but never used are simply skipped.
    private static let bodyIDBlock: Int64 = 256

    /// The next event body id, from a block this connection reserved from the table's identity sequence (ids are
    /// unique across nodes; sequences never go back, even when a transaction rolls back). Bodies are appended in
    /// writing transactions only, under the nodes' write lock: one nextval and one setval take the whole block, as for
    /// message ids, since every other taker (another node, `herald_send_message`) holds the lock too.
    func nextBodyID() throws(StoreError) -> Int64 {
        if bodyIDPool.isEmpty {
            guard let last = try connection.scalar(
                "SELECT setval(pg_get_serial_sequence('event_bodies', 'id'), nextval(pg_get_serial_sequence('event_bodies', 'id')) + $1)",
                .int(Self.bodyIDBlock - 1))
            else { throw StoreError(kind: .other, message: "no event body id was reserved") }
            bodyIDPool = Array(stride(from: last, through: last - Self.bodyIDBlock + 1, by: -1))
        }
        guard let id = bodyIDPool.popLast() else { throw StoreError(kind: .other, message: "no event body id was reserved") }
        return id
    }

    /// Loads the stream heads of `users` this transaction has not touched yet: from memory when nobody else wrote since
    /// this store's last commit, else in one read. No row lock: every writer holds the write lock, so the heads cannot
    /// move under this transaction (and U7's order of counts and seqs is the order of the writers). Returns the highest
    /// of their heads.
    func loadHeads(_ users: [String]) throws(StoreError) -> Int64 {
        let loaded = pending.loadHeads(users, from: committedHeads)
        var highest = loaded.highest
        let missing = loaded.missing
        guard !missing.isEmpty else { return highest }
        for (user, head) in try connection.query(
            "SELECT u, \(Self.derivedHead("u")) FROM unnest($1::text[]) AS u", .textArray(missing), row: { row in (row.text(0), row.int(1)) })
        {
            pending.load(user, head: head)
            highest = max(highest, head)
        }
        for user in missing { pending.load(user, head: 0) }
        return highest
    }

    /// Writes what the transaction appended to streams (and its messages) before a read of `user`'s stream inside it.
    private func writePendingStreams(of user: String) throws(StoreError) {
        guard pending.hasRuns(of: user) || pending.writtenMessages < pending.messages.count else { return }
        try writePending(streams: true)
    }

    /// Writes the transaction's messages and their counters before a read that must count or list them; with
    /// `streams`, also the bodies and runs not written yet.
    func writePending(streams: Bool = false) throws(StoreError) {
        let messagesUnwritten = pending.writtenMessages < pending.messages.count
        guard messagesUnwritten || (streams && pending.hasUnwritten) else { return }
        try writePendingStreams(wakeUp: false, streams: streams)
    }

    /// Writes the transaction's messages (with their counters) and, with `streams`, the bodies and runs not written
    /// yet, in one statement. With `wakeUp` (just before COMMIT) it also stores the wake-up row (every run of the
    /// transaction and every signal for other nodes) and sends its one NOTIFY, which PostgreSQL delivers to the
    /// listening nodes only if the transaction commits. With `thenCommit`, COMMIT follows in the same round trip and its
    /// tag is returned; nil when there was nothing to write (and nothing was sent).
    @discardableResult
    func writePendingStreams(wakeUp: Bool, streams: Bool = true, thenCommit: Bool = false) throws(StoreError) -> String? {
        guard !pending.isEmpty else { return nil }
        let fresh = streams ? pending.bodies[pending.writtenBodies...] : []
        let messages = pending.messages[pending.writtenMessages...]
        let conversations = messages.map { RecordID.parse(RecordID.conversation, $0.conversation) ?? 0 }
        let runs = pending.runColumns(of: streams ? pending.unwrittenUsers : [])
        let all = wakeUp ? pending.runColumns(of: pending.movedHeads) : runs
        let wake = wakeUp && (!all.users.isEmpty || !pending.signals.isEmpty)
        // New runs are plain inserts: a run another writer stored under the same seq (this node's idea of a head was
        // wrong) fails the statement on the primary key. A run written earlier in this transaction is updated, and only
        // if its first body is still this transaction's: one that another writer moved fails the statement too (the check
        // is in the statement, so the COMMIT that may follow it in the same round trip never runs).
        let sql = """
            WITH stored AS (
                INSERT INTO messages (id, conversation_id, sender_id, client_message_id, kind, text, image_url, created_at)
                SELECT * FROM unnest($13::bigint[], $14::bigint[], $15::text[], $16::text[], $17::bigint[], $18::text[], $19::text[], $20::bigint[])
            ), counted AS (
                UPDATE conversations c SET message_count = c.message_count + v.sent, last_activity = greatest(c.last_activity, v.at)
                FROM (SELECT m.conversation_id, count(*) AS sent, max(m.created_at) AS at
                      FROM unnest($14::bigint[], $20::bigint[]) AS m(conversation_id, created_at) GROUP BY 1) v
                WHERE c.id = v.conversation_id
            ), senders AS (
                UPDATE participants p SET sent_count = p.sent_count + v.sent
                FROM (SELECT m.conversation_id, m.sender_id, count(*) AS sent
                      FROM unnest($14::bigint[], $15::text[]) AS m(conversation_id, sender_id) GROUP BY 1, 2) v
                WHERE p.conversation_id = v.conversation_id AND p.user_id = v.sender_id
            ), bodies AS (
                INSERT INTO event_bodies (id, created_at, payload) SELECT * FROM unnest($1::bigint[], $2::bigint[], $3::bytea[])
            ), runs AS (
                SELECT * FROM unnest($4::text[], $5::bigint[], $6::bigint[], $7::bigint[], $8::bigint[], $9::bigint[])
                    AS r(user_id, first_seq, first_body, count, created_at, stored)
            ), inserted AS (
                INSERT INTO stream_runs (user_id, first_seq, first_body, count, created_at)
                SELECT user_id, first_seq, first_body, count, created_at FROM runs WHERE stored = 0
                RETURNING 1
            ), grown AS (
                UPDATE stream_runs s SET count = r.count, created_at = r.created_at FROM runs r
                WHERE r.stored = 1 AND s.user_id = r.user_id AND s.first_seq = r.first_seq AND s.first_body = r.first_body
                RETURNING 1
            ), wake AS (
                INSERT INTO stream_wakeups (node_id, created_at, users, first_seqs, first_bodies, counts, signals, generation)
                SELECT $10, \(Self.databaseNow), $21, $22, $23, $24, $11, $25 WHERE $12
                RETURNING id
            )
            SELECT herald_require((SELECT count(*) FROM inserted) + (SELECT count(*) FROM grown) = $26,
                                  'a stream head moved under this node: another writer stored one of its runs'),
                   (SELECT pg_notify('\(Self.wakeChannel)', id::text || ' ' || $10) FROM wake)
            """
        let bindings: [PGValue] = [
            .intArray(fresh.map(\.id)), .intArray(fresh.map(\.createdAt)), .blobArray(fresh.map(\.payload)),
            .textArray(runs.users), .intArray(runs.firstSeqs), .intArray(runs.firstBodies), .intArray(runs.counts),
            .intArray(runs.createdAt), .intArray(runs.stored),
            .text(clusterNode ?? ""), .textArray(pending.signals), .bool(wake),
            .intArray(messages.map(\.order)), .intArray(conversations), .textArray(messages.map(\.sender)),
            .textArray(messages.map(\.clientMessageId)), .intArray(messages.map(\.kind.rawValue)), .optionalTextArray(messages.map(\.text)),
            .optionalTextArray(messages.map(\.imageURL)), .intArray(messages.map(\.createdAt)),
            .textArray(all.users), .intArray(all.firstSeqs), .intArray(all.firstBodies), .intArray(all.counts),
            .int(transactionGeneration ?? 0), .int(Int64(runs.users.count)),
        ]
        if thenCommit {
            let tag = try connection.execute(sql, bindings, then: "COMMIT")
            pending.markWritten(streams: streams)
            return tag
        }
        try connection.execute(sql, bindings)
        pending.markWritten(streams: streams)
        return nil
    }
}
