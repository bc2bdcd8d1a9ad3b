import HeraldStoreProtocol
/// A stretch of one user's stream in which the seq and the event body id both go up by one per event: seqs
/// `firstSeq ..< firstSeq + count` are bodies `firstBody ..< firstBody + count`. A group message sent while the
/// same group's previous message was the user's last event extends the run instead of adding a row, so a batch of
/// 32 messages to a group of 1,000 writes 1,000 rows, not 32,000 (one `stream_runs` row per user and run).
struct StreamRun: Equatable, Sendable {
    var firstSeq: Int64
    var firstBody: Int64
    var count: Int64

    /// The run's last seq; nil when the values (read from the file) do not describe a run.
    var lastSeq: Int64? {
        guard count > 0 else { return nil }
        let (last, overflow) = firstSeq.addingReportingOverflow(count - 1)
        return overflow ? nil : last
    }

    /// The run's last body id; nil when the values (read from the file) do not describe a run.
    var lastBody: Int64? {
        guard count > 0 else { return nil }
        let (last, overflow) = firstBody.addingReportingOverflow(count - 1)
        return overflow ? nil : last
    }

    /// How many entries from the start of the run have a seq ≤ `seq` and a body ≤ `body` (both rise along a run,
    /// so they are a prefix).
    func prefixCount(throughSeq seq: Int64, throughBody body: Int64) -> Int64 {
        func entries(from first: Int64, through last: Int64) -> Int64 {
            guard last >= first else { return 0 }
            let (distance, overflow) = last.subtractingReportingOverflow(first)
            return overflow || distance >= count ? count : distance + 1
        }
        return min(entries(from: firstSeq, through: seq), entries(from: firstBody, through: body))
    }

    /// Whether `(seq, body)` is the run's next entry.
    func continues(seq: Int64, body: Int64) -> Bool {
        count > 0 && count < .max && seq &- firstSeq == count && body &- firstBody == count
    }
}

/// Every user's stream head and newest run, kept in memory so appending an event costs no read and no write per
/// event: the rows are written once per user per transaction, just before COMMIT (``SQLiteStore/writeDirtyStreams()``).
///
/// Only valid while this store is the ONLY writer of event streams in its database file. That holds for the server:
/// one sync thread owns the one read-write `SQLiteStore` that appends events. Other connections to the same file
/// (`herald-server token`, the API's key lookups, a test's second store) never append events, so they never move a
/// head behind our back. Read-only stores do not use the cache at all (another process may be writing).
///
/// Each cached user has a slot (an index into ``slots``) for as long as they are cached. A fan-out to the same
/// participants as the one before (a burst of messages to one group) finds its slots again by comparing the list,
/// one pointer comparison when the store hands out the same participants list, instead of hashing every member's
/// id per message (perf of a /sync fan-out to 1,000: the keyed append was a seventh of the sync thread).
///
/// A run that only grew is not always rewritten at COMMIT: when the file already has its row and every event since went
/// to an audience recorded with its body (a conversation's participants, or one user), the row may lag behind, because
/// reading the file can still find the run's end (``SQLiteStore`` follows the bodies after the row while they went to
/// the user). A group of 1,000 then costs no 1,000 row updates per transaction, only one per flush: every
/// ``flushEveryCommits`` commits, before pruning, before the cache is dropped and when the store closes.
///
/// Rollbacks undo exactly what they covered: every change (including a load, which may have read rows written
/// earlier in the transaction) logs the previous value, or for runs that only grew by one event, that they did; rolling
/// back a savepoint replays the log back to the mark taken when it began. Runs closed in the transaction are kept until
/// COMMIT and truncated by rollbacks.
struct StreamCache {
    struct UserStream {
        /// The last seq handed out (survives pruning through `event_heads`).
        var head: Int64
        /// The user's newest run, when it ends at `head` and may still grow.
        var run: StreamRun?
        /// The transaction in which `run` last changed; equal to the current one means "write before COMMIT".
        var changedIn: UInt64 = 0
        /// How many events of `run` its row in the file holds (committed); nil when the file has no row for it yet.
        var storedCount: Int64?
        /// Whether every event of `run` past `storedCount` went to an audience recorded with its body, so that the file
        /// alone leads to the run's end and the row may wait.
        var recoverable = true

        /// Whether the row of `run` may stay behind at COMMIT.
        var mayLag: Bool { storedCount != nil && recoverable }
        /// Whether the file's row holds fewer events of `run` than this.
        var lags: Bool {
            guard let run, let storedCount else { return false }
            return storedCount != run.count
        }
    }

    /// A position in the undo log, with the cache generation it belongs to.
    struct Mark {
        fileprivate var undo: Int
        fileprivate var closed: Int
        fileprivate var generation: UInt64
    }

    /// The cached streams by slot, the user of each slot, and each user's slot. Slots are appended by loads and taken
    /// back, newest first, only by rolling back those loads, so a slot keeps its user while both are cached.
    private var slots: [UserStream] = []
    private var slotUsers: [String] = []
    private var slotOf: [String: Int] = [:]
    /// The last fan-out's participants and their slots (dropped whenever a slot is taken back).
    private var lastFanOut: (users: [String], slots: [Int])?
    /// The user list of the remembered fan-out (the array itself: an identical array is recognised without comparing ids).
    var rememberedFanOutUsers: [String]? { lastFanOut?.users }
    /// Slots whose run changed in the open transaction (each once; after a rollback perhaps one whose change was undone:
    /// writing its restored, already stored run again is harmless).
    private var dirtySlots: [Int] = []
    /// Runs that stopped growing in the open transaction; they are written before COMMIT like the current ones.
    private var closedRuns: [(slot: Int, run: StreamRun)] = []
    /// Slots whose run's row lags behind it in the committed file (see ``UserStream/lags``).
    private(set) var lagging: Set<Int> = []
    /// Commits that left a row lagging since the last one that left none.
    private var commitsSinceFlush = 0
    /// At most this many commits leave a grown run's row behind (and that many transactions' bodies to follow when a
    /// stream is read from the file).
    static let flushEveryCommits = 64
    /// One entry of the undo log.
    private enum Change {
        /// `slot` held `previous` before the change; nil: the slot was loaded by it.
        case replaced(slot: Int, previous: UserStream?)
        /// Each of `slots` got one more event at the end of a run that had already changed in this transaction (a
        /// group's message after the same group's previous one): undone by taking that event back. A burst to a group
        /// of 1,000 logs one entry per message instead of 1,000.
        case extended(slots: [Int])
    }

    /// The changes of the open transaction, oldest first.
    private var undo: [Change] = []
    /// Counts transactions, so "changed in this transaction" needs no set of users.
    private var transaction: UInt64 = 1
    /// Bumped by ``removeAll()``: a rollback to a mark of an older generation cannot replay, so it drops everything.
    private var generation: UInt64 = 0
    /// Beyond this many cached users the cache is dropped at the next commit (it reloads on demand).
    static let maxCachedUsers = 200_000

    /// The position to roll back to for a savepoint that begins now.
    var mark: Mark { Mark(undo: undo.count, closed: closedRuns.count, generation: generation) }

    /// The cached stream, if any.
    func stream(of user: String) -> UserStream? { slotOf[user].map { slots[$0] } }

    /// The user's runs that changed in the open transaction and are not in the table as they stand: the runs it closed
    /// and its current one. Empty outside a transaction (a commit wrote them all).
    func pendingRuns(of user: String) -> [StreamRun] {
        guard let slot = slotOf[user], slots[slot].changedIn == transaction else { return [] }
        return closedRuns.filter { $0.slot == slot }.map(\.run) + (slots[slot].run.map { [$0] } ?? [])
    }

    /// Whether the next COMMIT should write every lagging row too.
    var flushDue: Bool {
        !lagging.isEmpty && (commitsSinceFlush + 1 >= Self.flushEveryCommits || slots.count > Self.maxCachedUsers)
    }

    /// The rows to write before COMMIT: the runs the open transaction closed, then each changed user's current run
    /// unless its row may lag (``UserStream/mayLag``); with `flush`, every current run whose row lags as well.
    func rowsToWrite(flush: Bool) -> [(user: String, run: StreamRun)] {
        var rows = closedRuns.map { (user: slotUsers[$0.slot], run: $0.run) }
        rows.reserveCapacity(rows.count + dirtySlots.count)
        for slot in dirtySlots {
            if let run = slots[slot].run, flush || !slots[slot].mayLag { rows.append((slotUsers[slot], run)) }
        }
        if flush {
            for slot in lagging where slots[slot].changedIn != transaction {
                if let run = slots[slot].run { rows.append((slotUsers[slot], run)) }
            }
        }
        return rows
    }

    /// After ``laggingRows`` were written and committed: no row lags.
    mutating func markAllWritten() {
        for slot in lagging { slots[slot].storedCount = slots[slot].run?.count }
        lagging.removeAll()
    }

    /// Every current run whose row lags, e.g. to write before the store closes.
    var laggingRows: [(user: String, run: StreamRun)] {
        lagging.compactMap { slot in slots[slot].run.map { (slotUsers[slot], $0) } }
    }

    /// The user's current run when its row lags in the committed file.
    func laggingRun(of user: String) -> StreamRun? {
        guard let slot = slotOf[user], slots[slot].lags else { return nil }
        return slots[slot].run
    }

    /// Records a stream read from the database. Logged for rollbacks: inside a transaction the rows read may be
    /// uncommitted ones this cache wrote itself.
    mutating func load(_ user: String, _ stream: UserStream) {
        guard slotOf[user] == nil else { return }
        var loaded = stream
        loaded.changedIn = 0
        undo.append(.replaced(slot: slots.count, previous: nil))
        if loaded.lags { lagging.insert(slots.count) }
        slotOf[user] = slots.count
        slots.append(loaded)
        slotUsers.append(user)
    }

    /// Hands each of `users` (distinct) the next seq of their stream for `body`, in order; nil, with nothing changed,
    /// when one of them is not cached. Throws when a head is at the last Int64 (from the file; `+ 1` would trap).
    /// `recorded`: the body's audience is stored with it (``UserStream/recoverable``).
    mutating func append(_ users: [String], body: Int64, recorded: Bool = false) throws(StoreError) -> [Int64]? {
        let userSlots: [Int]
        if let last = lastFanOut, last.users == users {
            userSlots = last.slots
            // Equal by content, perhaps not by identity (a group's announcement lists its members in another array
            // than the participants cache hands out for every message after): keep the caller's array, so the next
            // fan-out of the same list is recognised by identity, not by comparing every user id.
            lastFanOut = (users, userSlots)
        } else {
            var found: [Int] = []
            found.reserveCapacity(users.count)
            for user in users {
                guard let slot = slotOf[user] else { return nil }
                found.append(slot)
            }
            userSlots = found
            // Only a group is worth remembering: a single user's list is new every time.
            if users.count > 1 { lastFanOut = (users, found) }
        }
        var seqs: [Int64] = []
        seqs.reserveCapacity(userSlots.count)
        if recorded || userSlots.allSatisfy({ !slots[$0].mayLag }), userSlots.allSatisfy({ extendsChangedRun(slots[$0], body: body) }) {
            slots.withUnsafeMutableBufferPointer { streams in
                for slot in userSlots {
                    streams[slot].head += 1
                    streams[slot].run?.count += 1
                    seqs.append(streams[slot].head)
                }
            }
            undo.append(.extended(slots: userSlots))
            return seqs
        }
        for slot in userSlots { seqs.append(try append(slot: slot, body: body, recorded: recorded)) }
        return seqs
    }

    /// Whether `body` would simply be the next event of `stream`'s run, which already changed in this transaction
    /// (so nothing but the head and the run's count moves: see ``Change/extended(slots:)``).
    private func extendsChangedRun(_ stream: UserStream, body: Int64) -> Bool {
        guard stream.changedIn == transaction, stream.head < .max, let run = stream.run else { return false }
        return run.continues(seq: stream.head + 1, body: body)
    }

    private mutating func append(slot: Int, body: Int64, recorded: Bool) throws(StoreError) -> Int64 {
        let previous = slots[slot]
        guard previous.head < .max else { throw StoreError(kind: .corrupt, message: "\(slotUsers[slot])'s stream is at the last sequence number") }
        let seq = previous.head + 1
        undo.append(.replaced(slot: slot, previous: previous))
        var next = previous
        next.head = seq
        if let run = previous.run, run.continues(seq: seq, body: body) {
            next.run?.count += 1
            if !recorded { next.recoverable = false }
        } else {
            // A run that changed in this transaction, or whose row lags, is not in the table as it stands: keep it for
            // COMMIT (a closed run's row never lags: only a user's newest run can be followed to its end).
            if let run = previous.run, previous.changedIn == transaction || previous.lags { closedRuns.append((slot, run)) }
            next.run = StreamRun(firstSeq: seq, firstBody: body, count: 1)
            next.storedCount = nil
            next.recoverable = true
        }
        if previous.changedIn != transaction {
            next.changedIn = transaction
            dirtySlots.append(slot)
        }
        slots[slot] = next
        return seq
    }

    /// Restores everything changed since `mark` (a rolled-back savepoint or transaction).
    mutating func rollBack(to mark: Mark) {
        guard mark.generation == generation else {
            removeAll()
            return
        }
        while undo.count > mark.undo, let change = undo.popLast() {
            switch change {
            case .replaced(let slot, let previous?):
                slots[slot] = previous
            case .replaced:
                // The load of the newest slot (loads are undone newest first, after every later change).
                slotOf[slotUsers.removeLast()] = nil
                slots.removeLast()
                lastFanOut = nil
            case .extended(let extended):
                for slot in extended {
                    slots[slot].head -= 1
                    slots[slot].run?.count -= 1
                }
            }
        }
        if closedRuns.count > mark.closed { closedRuns.removeSubrange(mark.closed...) }
        dirtySlots.removeAll { $0 >= slots.count }
        lagging = lagging.filter { $0 < slots.count }
    }

    /// The outermost transaction ended: `committed` after ``rowsToWrite(flush:)`` was written with `flushed`, or rolled
    /// back to its start (then the rows written are gone with it and the file is as before).
    mutating func endTransaction(committed: Bool = false, flushed: Bool = false) {
        if committed {
            for slot in dirtySlots where slot < slots.count {
                if flushed || !slots[slot].mayLag { slots[slot].storedCount = slots[slot].run?.count }
                if slots[slot].storedCount != nil { slots[slot].recoverable = true }
                if slots[slot].lags { lagging.insert(slot) } else { lagging.remove(slot) }
            }
            if flushed {
                for slot in lagging { slots[slot].storedCount = slots[slot].run?.count }
                lagging.removeAll()
            }
            commitsSinceFlush = lagging.isEmpty ? 0 : commitsSinceFlush + 1
        }
        undo.removeAll(keepingCapacity: true)
        dirtySlots.removeAll(keepingCapacity: true)
        closedRuns.removeAll(keepingCapacity: true)
        transaction &+= 1
        if slots.count > Self.maxCachedUsers && lagging.isEmpty { dropStreams() }
    }

    /// Forgets everything, e.g. after pruning rewrote rows. Safe inside a transaction only once every dirty run
    /// is in the table (pruning writes them first); later rollbacks of older marks then drop the cache again.
    mutating func removeAll() {
        dropStreams()
        undo.removeAll(keepingCapacity: true)
        dirtySlots.removeAll(keepingCapacity: true)
        closedRuns.removeAll(keepingCapacity: true)
        generation &+= 1
    }

    private mutating func dropStreams() {
        lagging.removeAll()
        slots.removeAll()
        slotUsers.removeAll()
        slotOf.removeAll()
        lastFanOut = nil
    }
}
