import HeraldStoreProtocol
import Logging

/// E2's "offline with the time last seen", kept in the store so it outlives a restart: written when a user's last
/// device here goes away, in the transaction of the batch that saw it go (all of the batch's users in one write), and
/// read once per process for an offline contact whose time this node does not know.
extension SyncCore {
    /// `user`'s last device here went away at `now`.
    func userLeft(_ user: String, now: Int64) {
        ephemeral.lastSeen[user] = now
        ephemeral.lastSeenRead.insert(user)
        ephemeral.lastSeenToStore[user] = max(ephemeral.lastSeenToStore[user] ?? .min, now)
    }

    /// Writes the last-seen times not stored yet, inside the caller's transaction (as a savepoint: a failure here never
    /// fails the batch's requests; the times stay queued for the next batch). Forgotten only once committed: call
    /// ``lastSeenStored(_:)`` after the commit with what this returned.
    func storeLastSeen() -> [String: Int64] {
        let times = ephemeral.lastSeenToStore
        guard !times.isEmpty else { return [:] }
        do {
            try store.transaction { try store.recordLastSeen(times) }
            return times
        } catch {
            logger.debug("last-seen times not stored", metadata: ["users": "\(times.count)", "error": "\(error)"])
            return [:]
        }
    }

    /// The times ``storeLastSeen()`` wrote were committed: they need no writing again (unless a later one came meanwhile).
    func lastSeenStored(_ times: [String: Int64]) {
        for (user, time) in times where ephemeral.lastSeenToStore[user] == time { ephemeral.lastSeenToStore[user] = nil }
    }

    /// The server stops: everyone still connected here is last seen now, and every time not stored yet is written, in
    /// one transaction. Call on the sync thread after the last batch.
    public func recordDepartures(now: Int64) {
        for user in devicesByUser.keys { userLeft(user, now: now) }
        do {
            let times = try store.transaction { storeLastSeen() }
            lastSeenStored(times)
        } catch {
            logger.debug("last-seen times not stored at shutdown", metadata: ["error": "\(error)"])
        }
    }

    /// Fills in the stored last-seen time of offline `users` this node knows none for (after a restart), in one read.
    func loadLastSeen(of users: [String]) {
        let unknown = users.filter { ephemeral.lastSeen[$0] == nil && !ephemeral.lastSeenRead.contains($0) }
        guard !unknown.isEmpty else { return }
        do {
            let stored = try store.lastSeen(users: unknown)
            for (user, time) in stored { ephemeral.lastSeen[user] = max(ephemeral.lastSeen[user] ?? .min, time) }
            ephemeral.lastSeenRead.formUnion(unknown)
        } catch {
            logger.debug("last-seen times not read", metadata: ["users": "\(unknown.count)", "error": "\(error)"])
        }
    }
}
