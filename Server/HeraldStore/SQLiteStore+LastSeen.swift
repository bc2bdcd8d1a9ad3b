import HeraldStoreProtocol

extension SQLiteStore {
    // MARK: - Last seen (E2)

    public func recordLastSeen(_ times: [String: Int64]) throws {
        guard !times.isEmpty else { return }
        // One prepared statement per user inside the caller's transaction (the batch's): no commit per user.
        try transaction {
            for (user, time) in times {
                try connection.execute(
                    "UPDATE users SET last_seen_at = ?2 WHERE id = ?1 AND (last_seen_at IS NULL OR last_seen_at < ?2)",
                    .text(user), .int(time))
            }
        }
    }

    public func lastSeen(users: [String]) throws -> [String: Int64] {
        var times: [String: Int64] = [:]
        for user in Set(users) {
            if let time = try connection.queryFirst(
                "SELECT last_seen_at FROM users WHERE id = ?", .text(user), row: { row in row.optionalInt(0) }) ?? nil
            {
                times[user] = time
            }
        }
        return times
    }
}
