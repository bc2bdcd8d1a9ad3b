/// The last sequence number handed out per user, kept in memory so appending an event costs no read of
/// `event_heads` and one write of it per user per transaction (at commit), not an upsert per event.
///
/// Only valid while this store is the ONLY writer of event streams in its database file. That holds for the server:
/// one sync thread owns the one read-write `SQLiteStore` that appends events. Other connections to the same file
/// (`herald-server token`, the API's key lookups, a test's second store) never append events, so they never move a
/// head behind our back. Read-only stores do not use the cache at all (another process may be writing).
///
/// Rollbacks undo exactly what they covered: every change logs the previous value, and rolling back a savepoint
/// replays the log back to the mark taken when it began.
struct StreamHeadCache {
    /// Heads known in memory: loaded from `event_heads`, or advanced in the open transaction.
    private var heads: [String: Int64] = [:]
    /// Users whose head moved in the open transaction and must be written before it commits.
    private(set) var dirty: [String] = []
    private var isDirty: Set<String> = []
    /// (user, head before the change; nil when it was not cached) in change order, for rollbacks.
    private var undo: [(user: String, previous: Int64?)] = []
    /// Beyond this many cached users the cache is dropped at the next commit (it reloads on demand).
    static let maxCachedUsers = 200_000

    /// The position to roll back to for a savepoint that begins now.
    var mark: Int { undo.count }

    /// The cached head, if any.
    func head(of user: String) -> Int64? { heads[user] }

    /// Records a head read from the database (the committed value, since nothing writes heads but the commit).
    mutating func load(_ user: String, _ head: Int64) {
        if heads[user] == nil { heads[user] = head }
    }

    /// Hands out the next sequence number of `user`, whose head must be cached.
    mutating func advance(_ user: String, from head: Int64) -> Int64 {
        undo.append((user, heads[user]))
        heads[user] = head + 1
        if isDirty.insert(user).inserted { dirty.append(user) }
        return head + 1
    }

    /// Restores every head changed since `mark` (a rolled-back savepoint or transaction).
    mutating func rollBack(to mark: Int) {
        while undo.count > mark, let (user, previous) = undo.popLast() {
            heads[user] = previous
        }
    }

    /// The outermost transaction ended (committed, or rolled back after ``rollBack(to:)`` with mark 0).
    mutating func endTransaction() {
        undo.removeAll(keepingCapacity: true)
        dirty.removeAll(keepingCapacity: true)
        isDirty.removeAll(keepingCapacity: true)
        if heads.count > Self.maxCachedUsers { heads.removeAll() }
    }

    /// Forgets everything (e.g. after an outside change such as pruning by another connection).
    mutating func removeAll() {
        heads.removeAll()
        endTransaction()
    }
}
