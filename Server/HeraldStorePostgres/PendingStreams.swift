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

/// What the open transaction appended to streams, held in memory and written once, just before COMMIT: per user
/// one head and (usually) one run however many events the batch gave them, every body in one statement, and one
/// wake-up row with one NOTIFY for the other nodes. A group of 1,000 receiving 32 messages in one batch costs 1,000
/// run rows and 1,000 head updates, not 32,000 of each.
///
/// A head is read the first time the transaction touches a user (from memory when nobody else wrote since this
/// store's last commit); the nodes' write lock, held until COMMIT, keeps every other writer out meanwhile. A savepoint
/// copies the whole value and a rollback to it restores the copy (copy-on-write: the copy costs nothing until the
/// nested body changes something).
struct PendingStreams {
    /// Users whose stream this transaction touched, with the last seq handed out.
    var heads: [String: Int64] = [:]
    /// Users whose head moved, in the order they first did.
    var movedHeads: [String] = []
    /// Each user's runs in this transaction, in seq order.
    var runs: [String: [PostgresStreamRun]] = [:]
    /// Bodies to insert: id, creation time and payload, in id order.
    var bodies: [(id: Int64, createdAt: Int64, payload: [UInt8])] = []
    /// How many of ``bodies`` (and whether every run) are in the database already (written early so a read inside
    /// the transaction sees them); the rest go at COMMIT.
    var writtenBodies = 0
    /// Users whose head or runs changed since they were last written (early, for a read inside the transaction), in
    /// the order they changed: a write inside the transaction writes only these, so each row is written once per
    /// write, not once per write for every user the transaction touched so far.
    var unwrittenUsers: [String] = []
    private var unwritten: Set<String> = []
    /// Requests for other nodes (push, clear, sign-out), delivered with the wake-up after COMMIT.
    var signals: [String] = []

    /// Messages sent in this transaction, in id order (the ids were taken after the write lock, so they are above every
    /// id committed before: storage order stays commit order, R2), inserted with their counters at COMMIT.
    var messages: [MessageRecord] = []
    /// Their indexes by (sender, client message id), for R4 inside the batch.
    var messageIndex: [String: Int] = [:]
    /// How many of ``messages`` are in the database already (written early for a read inside the transaction).
    var writtenMessages = 0

    var isEmpty: Bool { bodies.isEmpty && movedHeads.isEmpty && signals.isEmpty && messages.isEmpty }

    /// Whether something is not in the database yet (what a read inside the transaction must see first).
    var hasUnwritten: Bool { writtenBodies < bodies.count || !unwrittenUsers.isEmpty || writtenMessages < messages.count }

    /// Marks every head and run as written.
    mutating func markStreamsWritten() {
        unwrittenUsers.removeAll(keepingCapacity: true)
        unwritten.removeAll(keepingCapacity: true)
        writtenBodies = bodies.count
    }

    /// The R4 key of a message.
    static func messageKey(sender: String, clientMessageId: String) -> String { sender + "\u{0}" + clientMessageId }

    /// Hands `user` the next seq for body `body`; the head must be loaded.
    mutating func append(_ user: String, body: Int64, at now: Int64) -> Int64? {
        guard let head = heads[user], head < .max else { return nil }
        let seq = head + 1
        heads[user] = seq
        if unwritten.insert(user).inserted { unwrittenUsers.append(user) }
        if runs[user] == nil {
            movedHeads.append(user)
            runs[user] = [PostgresStreamRun(firstSeq: seq, firstBody: body, count: 1, createdAt: now)]
        } else if let last = runs[user]?.last, last.continues(seq: seq, body: body) {
            runs[user]![runs[user]!.count - 1].count += 1
            runs[user]![runs[user]!.count - 1].createdAt = max(last.createdAt, now)
        } else {
            runs[user]!.append(PostgresStreamRun(firstSeq: seq, firstBody: body, count: 1, createdAt: now))
        }
        return seq
    }

    /// The runs of `users` as parallel arrays (the statement's `unnest` parameters).
    func runColumns(of users: [String]) -> (users: [String], firstSeqs: [Int64], firstBodies: [Int64], counts: [Int64], createdAt: [Int64]) {
        var columns: (users: [String], firstSeqs: [Int64], firstBodies: [Int64], counts: [Int64], createdAt: [Int64]) = ([], [], [], [], [])
        for user in users {
            for run in runs[user] ?? [] {
                columns.users.append(user)
                columns.firstSeqs.append(run.firstSeq)
                columns.firstBodies.append(run.firstBody)
                columns.counts.append(run.count)
                columns.createdAt.append(run.createdAt)
            }
        }
        return columns
    }
}
