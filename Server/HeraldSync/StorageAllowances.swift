/// This node's share of each user's daily storage allowance (``StorageQuota``), so a send asks the store only now and
/// then instead of every time.
///
/// The store's `storage_usage` row counts what the nodes have *reserved* for the user that day, checked against the
/// quota in the write itself, so all nodes together never reserve more than the quota. A node reserves a chunk
/// (``StorageQuota/reservationChunk``, or the message's whole cost when larger) and spends it in memory; a PostgreSQL
/// send then costs no round trip of its own. Near the limit it reserves exactly what one message needs, and it
/// remembers the smallest cost the store refused that day, so a user past the quota who keeps sending costs no query
/// at all (charges only grow during a day, so a refusal stays true).
///
/// What this gives up: reserved bytes a node never spent are lost to the user when it restarts (under-use, one chunk
/// per user and restart), and a reservation written in a request that then rolls back on its own stays spendable here
/// (over-use, one chunk per such rollback; that is a store failure, not something a user can cause at will: a batch
/// that runs again starts from the allowances it started with). Pure: the store is a closure and the day comes in.
struct StorageAllowances {
    private struct Entry {
        var day: Int64
        /// Reserved in the store, not spent yet.
        var reserved: Int64 = 0
        /// The smallest cost the store refused this day (`.max`: none).
        var refusedFrom: Int64 = .max
    }

    private var entries: [String: Entry] = [:]

    /// Spends `bytes` of `user`'s allowance on `day`, asking `reserve` (the store's atomic check-and-add) for more
    /// when this node's share runs short. Returns false when the quota refuses them; nothing is spent then.
    mutating func spend(
        _ bytes: Int64, user: String, day: Int64, quota: StorageQuota, reserve: (Int64) throws -> Bool
    ) rethrows -> Bool {
        var entry = entries[user].flatMap { $0.day == day ? $0 : nil } ?? Entry(day: day)
        if bytes <= entry.reserved {
            entry.reserved -= bytes
            entries[user] = entry
            return true
        }
        guard bytes < entry.refusedFrom else { return false }
        let needed = bytes - entry.reserved
        let chunk = max(needed, quota.reservationChunk)
        if chunk > needed, try reserve(chunk) {
            entry.reserved += chunk - bytes
        } else if try reserve(needed) {
            entry.reserved = 0
        } else {
            entry.refusedFrom = bytes
            entries[user] = entry
            return false
        }
        entries[user] = entry
        return true
    }

    /// Forgets the users' shares of days before `day`.
    mutating func prune(before day: Int64) {
        entries = entries.filter { $0.value.day >= day }
    }

    /// How many users have a share here (for tests).
    var count: Int { entries.count }
}
