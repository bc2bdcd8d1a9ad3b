import HeraldStore

/// A stretch of one user's stream appended by one transaction in which seq and body id both go up by one per
/// event: seqs `firstSeq ..< firstSeq + count` are bodies `firstBody ..< firstBody + count` (one `stream_runs` row).
struct PostgresStreamRun: Equatable, Sendable {
    var firstSeq: Int64
    var firstBody: Int64
    var count: Int64
    /// When its newest event was stored (ms); pruning takes a run only when all of it is old.
    var createdAt: Int64

    /// Whether `(seq, body)` is the run's next entry.
    func continues(seq: Int64, body: Int64) -> Bool {
        count > 0 && seq &- firstSeq == count && body &- firstBody == count
    }
}

/// What the open transaction wrote, held in memory and written once, just before COMMIT: its messages with their
/// counters, and per user (usually) one run however many events the batch gave them, every body in one statement, and
/// one wake-up row with one NOTIFY for the other nodes. A group of 1,000 receiving 32 messages in one batch costs 1,000
/// run rows, not 32,000. Heads are not written: a user's head is the end of their newest run (``PostgresStore``
/// keeps `event_heads` only for users whose runs were all pruned).
///
/// A head is read the first time the transaction touches a user (from memory when nobody else wrote since this
/// store's last commit); the nodes' write lock, held until COMMIT, keeps every other writer out meanwhile.
///
/// Savepoints: every change is journaled with what it replaced, and rolling back to a savepoint undoes the journal
/// back to the mark taken when it began. A request's savepoint costs what the request changed, not a copy of the whole
/// batch (a batch of 5,000 sends would otherwise copy 5,000 entries per send).
struct PendingStreams {
    /// One user's stream in this transaction: everything about it behind one dictionary lookup, since a fan-out
    /// appends to every member's stream per message.
    struct UserStream {
        /// The last seq handed out.
        var head: Int64
        /// This transaction's runs, in seq order.
        var runs: [PostgresStreamRun] = []
        /// How many of ``runs`` are in the database already: those are updated when they grow, the others inserted
        /// (a plain INSERT, the cheap path, unless a read inside the transaction wrote some early).
        var storedRuns = 0
        /// Whether it changed since it was last written.
        var unwritten = false
    }

    /// Users whose stream this transaction touched.
    private(set) var streams: [String: UserStream] = [:]
    /// Users whose head moved, in the order they first did.
    private(set) var movedHeads: [String] = []
    /// Bodies to insert: id, creation time and payload, in id order.
    private(set) var bodies: [(id: Int64, createdAt: Int64, payload: [UInt8])] = []
    /// How many of ``bodies`` are in the database already (written early for a read inside the transaction).
    private(set) var writtenBodies = 0
    /// Users whose runs changed since they were last written, in the order they changed: a write inside the
    /// transaction writes only these, so each row is written once per write, not once per write for every user the
    /// transaction touched so far. (After a rollback it may name a user whose runs are back as written: rewriting
    /// those is harmless.)
    private(set) var unwrittenUsers: [String] = []
    /// Requests for other nodes (push, clear, sign-out), delivered with the wake-up after COMMIT.
    private(set) var signals: [String] = []
    /// Messages sent in this transaction, in id order (the ids were taken after the write lock, so they are above every
    /// id committed before: storage order stays commit order, R2), inserted with their counters at COMMIT.
    private(set) var messages: [MessageRecord] = []
    /// Their indexes by (sender, client message id), for R4 inside the batch.
    private(set) var messageIndex: [String: Int] = [:]
    /// How many of ``messages`` are in the database already.
    private(set) var writtenMessages = 0

    /// One change, undone in reverse order.
    private enum Undo {
        /// One body appended to these users' streams (each got the next seq).
        case append([String])
        case body
        case signal
        case message(String)
        /// What ``markWritten(streams:)`` replaced: `storedRuns[i]` is the stored run count of `users[i]` before.
        case written(bodies: Int, messages: Int, users: [String], storedRuns: [Int])
    }
    private var journal: [Undo] = []

    var isEmpty: Bool { bodies.isEmpty && movedHeads.isEmpty && signals.isEmpty && messages.isEmpty }

    /// Whether something is not in the database yet (what a read inside the transaction must see first).
    var hasUnwritten: Bool { writtenBodies < bodies.count || !unwrittenUsers.isEmpty || writtenMessages < messages.count }

    /// The last seq handed out to `user`, when this transaction has loaded their stream.
    func head(of user: String) -> Int64? { streams[user]?.head }

    /// Whether this transaction appended to `user`'s stream.
    func hasRuns(of user: String) -> Bool { streams[user].map { !$0.runs.isEmpty } ?? false }

    /// The R4 key of a message.
    static func messageKey(sender: String, clientMessageId: String) -> String { sender + "\u{0}" + clientMessageId }

    // MARK: - Savepoints

    /// Where a savepoint begins.
    var mark: Int { journal.count }

    /// Undoes every change made since `mark`.
    mutating func rollback(to mark: Int) {
        while journal.count > mark, let undo = journal.popLast() {
            switch undo {
            case .append(let users):
                for user in users.reversed() { undoAppend(user) }
            case .body: bodies.removeLast()
            case .signal: signals.removeLast()
            case .message(let key):
                messages.removeLast()
                messageIndex[key] = nil
            case .written(let bodyCount, let messageCount, let users, let storedRuns):
                writtenBodies = bodyCount
                writtenMessages = messageCount
                // Users changed after the write had their appends undone already: back as written.
                for user in unwrittenUsers { streams[user]?.unwritten = false }
                unwrittenUsers = users
                for (user, count) in zip(users, storedRuns) {
                    streams[user]?.unwritten = true
                    streams[user]?.storedRuns = count
                }
            }
        }
    }

    /// Takes back the newest append to `user`'s stream (appends are undone newest first, so it is the end of their
    /// last run). A run that shrinks keeps its newer `createdAt`: pruning then keeps it a little longer, nothing worse.
    private mutating func undoAppend(_ user: String) {
        guard var stream = streams[user], let last = stream.runs.last else { return }
        stream.head -= 1
        if last.count > 1 {
            stream.runs[stream.runs.count - 1].count -= 1
        } else {
            stream.runs.removeLast()
            // Its head moved first with this append: it is the newest of the moved heads.
            if stream.runs.isEmpty, movedHeads.last == user { movedHeads.removeLast() }
        }
        streams[user] = stream
    }

    // MARK: - Changes

    /// The head of a user this transaction had not touched, as the database has it (not journaled: a rollback
    /// leaves it true).
    mutating func load(_ user: String, head: Int64) {
        if streams[user] == nil { streams[user] = UserStream(head: head) }
    }

    /// Loads each of `users` this transaction has not touched from `committed` (heads known without a read) and
    /// returns the highest head among those loaded, and the users found in neither (their heads are to be read).
    ///
    /// Mutating, and so run in place: the same loop through a non-mutating call on the store's `pending` copied this
    /// whole value (every array and dictionary in it retained and released) once per user per message.
    mutating func loadHeads(_ users: [String], from committed: [String: Int64]) -> (highest: Int64, missing: [String]) {
        var highest: Int64 = 0
        var missing: [String] = []
        for user in users {
            if let index = streams.index(forKey: user) {
                highest = max(highest, streams.values[index].head)
            } else if let head = committed[user] {
                streams[user] = UserStream(head: head)
                highest = max(highest, head)
            } else {
                missing.append(user)
            }
        }
        return (highest, missing)
    }

    /// Hands every user in `users` the next seq of their stream for body `body`, into `seqs`. Each stream must be
    /// loaded and more than `users.count` below `Int64.max` (checked by the caller before anything changes).
    mutating func append(_ users: [String], body: Int64, at now: Int64, seqs: inout [Int64]) {
        journal.append(.append(users))
        for user in users {
            var change = AppendChange()
            // One lookup per user: the stream is changed in place.
            Self.append(to: &streams[user, default: UserStream(head: 0)], body: body, at: now, change: &change)
            if change.firstChange { unwrittenUsers.append(user) }
            if change.firstRun { movedHeads.append(user) }
            seqs.append(change.seq)
        }
    }

    private struct AppendChange {
        var seq: Int64 = 0
        /// The stream had not changed since it was last written.
        var firstChange = false
        /// The stream had no run in this transaction.
        var firstRun = false
    }

    private static func append(to stream: inout UserStream, body: Int64, at now: Int64, change: inout AppendChange) {
        let seq = stream.head + 1
        stream.head = seq
        change.seq = seq
        if !stream.unwritten {
            stream.unwritten = true
            change.firstChange = true
        }
        let last = stream.runs.count - 1
        if last >= 0, stream.runs[last].continues(seq: seq, body: body) {
            stream.runs[last].count += 1
            stream.runs[last].createdAt = max(stream.runs[last].createdAt, now)
        } else {
            change.firstRun = last < 0
            stream.runs.append(PostgresStreamRun(firstSeq: seq, firstBody: body, count: 1, createdAt: now))
        }
    }

    /// An event body to insert.
    mutating func addBody(id: Int64, createdAt: Int64, payload: [UInt8]) {
        bodies.append((id, createdAt, payload))
        journal.append(.body)
    }

    /// A message to insert.
    mutating func addMessage(_ record: MessageRecord, key: String) {
        messageIndex[key] = messages.count
        messages.append(record)
        journal.append(.message(key))
    }

    /// A request for other nodes.
    mutating func addSignal(_ text: String) {
        signals.append(text)
        journal.append(.signal)
    }

    /// Everything up to now is in the database: the messages, and with `streams` the bodies, heads and runs.
    mutating func markWritten(streams writesStreams: Bool) {
        journal.append(.written(
            bodies: writtenBodies, messages: writtenMessages, users: unwrittenUsers,
            storedRuns: unwrittenUsers.map { streams[$0]?.storedRuns ?? 0 }))
        writtenMessages = messages.count
        guard writesStreams else { return }
        writtenBodies = bodies.count
        for user in unwrittenUsers {
            guard var stream = streams[user] else { continue }
            stream.storedRuns = stream.runs.count
            stream.unwritten = false
            streams[user] = stream
        }
        unwrittenUsers.removeAll(keepingCapacity: true)
    }

    /// The runs of `users` as parallel arrays (the statement's `unnest` parameters); `stored` is 1 for a run that is in
    /// the database already.
    func runColumns(of users: [String]) -> RunColumns {
        var columns = RunColumns()
        for user in users {
            guard let stream = streams[user] else { continue }
            for (index, run) in stream.runs.enumerated() {
                columns.users.append(user)
                columns.firstSeqs.append(run.firstSeq)
                columns.firstBodies.append(run.firstBody)
                columns.counts.append(run.count)
                columns.createdAt.append(run.createdAt)
                columns.stored.append(index < stream.storedRuns ? 1 : 0)
            }
        }
        return columns
    }

    struct RunColumns {
        var users: [String] = []
        var firstSeqs: [Int64] = []
        var firstBodies: [Int64] = []
        var counts: [Int64] = []
        var createdAt: [Int64] = []
        var stored: [Int64] = []
    }
}
