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
    /// Users whose stream this transaction touched, with the last seq handed out.
    private(set) var heads: [String: Int64] = [:]
    /// Users whose head moved, in the order they first did.
    private(set) var movedHeads: [String] = []
    /// Each user's runs in this transaction, in seq order.
    private(set) var runs: [String: [PostgresStreamRun]] = [:]
    /// Bodies to insert: id, creation time and payload, in id order.
    private(set) var bodies: [(id: Int64, createdAt: Int64, payload: [UInt8])] = []
    /// How many of ``bodies`` are in the database already (written early for a read inside the transaction).
    private(set) var writtenBodies = 0
    /// Users whose head or runs changed since they were last written, in the order they changed: a write inside the
    /// transaction writes only these, so each row is written once per write, not once per write for every user the
    /// transaction touched so far.
    private(set) var unwrittenUsers: [String] = []
    private var unwritten: Set<String> = []
    /// How many of each user's ``runs`` are in the database already: those are updated when they grow, the others
    /// inserted (a plain INSERT, the cheap path, unless a read inside the transaction wrote some early).
    private(set) var storedRuns: [String: Int] = [:]
    /// Requests for other nodes (push, clear, sign-out), delivered with the wake-up after COMMIT.
    private(set) var signals: [String] = []
    /// Messages sent in this transaction, in id order (the ids were taken after the write lock, so they are above every
    /// id committed before: storage order stays commit order, R2), inserted with their counters at COMMIT.
    private(set) var messages: [MessageRecord] = []
    /// Their indexes by (sender, client message id), for R4 inside the batch.
    private(set) var messageIndex: [String: Int] = [:]
    /// How many of ``messages`` are in the database already.
    private(set) var writtenMessages = 0

    /// One change and what it replaced.
    private enum Undo {
        case head(String, Int64?)
        case movedHead
        case runs(String, [PostgresStreamRun]?)
        case unwritten(String)
        case body
        case signal
        case message(String)
        case written(bodies: Int, messages: Int, users: [String], storedRuns: [String: Int?])
    }
    private var journal: [Undo] = []

    var isEmpty: Bool { bodies.isEmpty && movedHeads.isEmpty && signals.isEmpty && messages.isEmpty }

    /// Whether something is not in the database yet (what a read inside the transaction must see first).
    var hasUnwritten: Bool { writtenBodies < bodies.count || !unwrittenUsers.isEmpty || writtenMessages < messages.count }

    /// The R4 key of a message.
    static func messageKey(sender: String, clientMessageId: String) -> String { sender + "\u{0}" + clientMessageId }

    // MARK: - Savepoints

    /// Where a savepoint begins.
    var mark: Int { journal.count }

    /// Undoes every change made since `mark`.
    mutating func rollback(to mark: Int) {
        while journal.count > mark, let undo = journal.popLast() {
            switch undo {
            case .head(let user, let previous): heads[user] = previous
            case .movedHead: movedHeads.removeLast()
            case .runs(let user, let previous): runs[user] = previous
            case .unwritten(let user):
                unwritten.remove(user)
                unwrittenUsers.removeLast()
            case .body: bodies.removeLast()
            case .signal: signals.removeLast()
            case .message(let key):
                messages.removeLast()
                messageIndex[key] = nil
            case .written(let bodyCount, let messageCount, let users, let runCounts):
                writtenBodies = bodyCount
                writtenMessages = messageCount
                unwrittenUsers = users
                unwritten = Set(users)
                for (user, count) in runCounts { storedRuns[user] = count }
            }
        }
    }

    // MARK: - Changes

    /// The head of a user this transaction had not touched, as the database has it (not journaled: a rollback
    /// leaves it true).
    mutating func load(_ user: String, head: Int64) {
        if heads[user] == nil { heads[user] = head }
    }

    /// Hands `user` the next seq for body `body`; the head must be loaded and below `Int64.max`.
    mutating func append(_ user: String, body: Int64, at now: Int64) -> Int64? {
        guard let head = heads[user], head < .max else { return nil }
        let seq = head + 1
        journal.append(.head(user, head))
        heads[user] = seq
        if unwritten.insert(user).inserted {
            unwrittenUsers.append(user)
            journal.append(.unwritten(user))
        }
        let previous = runs[user]
        journal.append(.runs(user, previous))
        if previous == nil {
            movedHeads.append(user)
            journal.append(.movedHead)
            runs[user] = [PostgresStreamRun(firstSeq: seq, firstBody: body, count: 1, createdAt: now)]
        } else if let last = previous?.last, last.continues(seq: seq, body: body) {
            runs[user]![runs[user]!.count - 1].count += 1
            runs[user]![runs[user]!.count - 1].createdAt = max(last.createdAt, now)
        } else {
            runs[user]!.append(PostgresStreamRun(firstSeq: seq, firstBody: body, count: 1, createdAt: now))
        }
        return seq
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
    mutating func markWritten(streams: Bool) {
        var runCounts: [String: Int?] = [:]
        if streams {
            for user in unwrittenUsers {
                runCounts[user] = .some(storedRuns[user])
                storedRuns[user] = runs[user]?.count ?? 0
            }
        }
        journal.append(.written(bodies: writtenBodies, messages: writtenMessages, users: unwrittenUsers, storedRuns: runCounts))
        writtenMessages = messages.count
        guard streams else { return }
        writtenBodies = bodies.count
        unwrittenUsers.removeAll(keepingCapacity: true)
        unwritten.removeAll(keepingCapacity: true)
    }

    /// The runs of `users` as parallel arrays (the statement's `unnest` parameters); `stored` is 1 for a run that is in
    /// the database already.
    func runColumns(of users: [String]) -> RunColumns {
        var columns = RunColumns()
        for user in users {
            let stored = storedRuns[user] ?? 0
            for (index, run) in (runs[user] ?? []).enumerated() {
                columns.users.append(user)
                columns.firstSeqs.append(run.firstSeq)
                columns.firstBodies.append(run.firstBody)
                columns.counts.append(run.count)
                columns.createdAt.append(run.createdAt)
                columns.stored.append(index < stored ? 1 : 0)
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
