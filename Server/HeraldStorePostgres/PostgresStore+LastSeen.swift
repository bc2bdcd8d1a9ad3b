import HeraldStore

extension PostgresStore {
    // MARK: - Last seen (E2)

    public func recordLastSeen(_ times: [String: Int64]) throws {
        guard !times.isEmpty else { return }
        let users = Array(times.keys)
        // One statement for every user of the batch, in the caller's transaction. A later time seen by another node
        // stays.
        try connection.execute(
            """
            UPDATE users u SET last_seen_at = x.t FROM unnest($1::text[], $2::bigint[]) AS x(id, t)
            WHERE u.id = x.id AND (u.last_seen_at IS NULL OR u.last_seen_at < x.t)
            """, .textArray(users), .intArray(users.map { times[$0] ?? 0 }))
    }

    public func lastSeen(users: [String]) throws -> [String: Int64] {
        guard !users.isEmpty else { return [:] }
        var times: [String: Int64] = [:]
        for (user, time) in try connection.query(
            "SELECT id, last_seen_at FROM users WHERE id = ANY($1) AND last_seen_at IS NOT NULL", .textArray(users),
            row: { row in (row.text(0), row.int(1)) })
        {
            times[user] = time
        }
        return times
    }
}
