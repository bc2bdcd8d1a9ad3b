import HeraldRules

/// Which connections of a small local listener (the Web Push endpoint) to keep, sans-IO: each has `deadline` from
/// its accept to deliver a whole request, and at most `limit` are open; a new one past the limit closes the oldest.
/// A push service connects and sends its request at once (RFC 8030 §5), so a connection that waits is someone
/// else's, and idle connections can neither pile up nor keep the real pushes out.
struct ConnectionDeadlines<ID: Hashable> {
    let limit: Int
    let deadline: Milliseconds
    /// When each open connection was accepted.
    private(set) var accepted: [ID: Instant] = [:]

    init(limit: Int, deadline: Milliseconds) {
        self.limit = max(1, limit)
        self.deadline = deadline
    }

    /// `id` was accepted at `now`. Returns the connections to close to make room for it: the oldest, when `limit`
    /// were already open.
    mutating func admit(_ id: ID, now: Instant) -> [ID] {
        var closed: [ID] = []
        while accepted.count >= limit, let oldest = accepted.min(by: { $0.value < $1.value })?.key {
            accepted[oldest] = nil
            closed.append(oldest)
        }
        accepted[id] = now
        return closed
    }

    /// `id` was closed (answered, or the peer hung up).
    mutating func remove(_ id: ID) {
        accepted[id] = nil
    }

    /// The connections whose deadline has passed at `now`; they are forgotten, the caller closes them.
    mutating func expire(now: Instant) -> [ID] {
        let late = accepted.filter { now - $0.value >= deadline }.map(\.key)
        for id in late { accepted[id] = nil }
        return late
    }

    /// When the next deadline falls, if a connection is open.
    var nextDeadline: Instant? {
        accepted.values.min().map { $0 + deadline }
    }
}
