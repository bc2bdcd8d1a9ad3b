/// Pushes in their grace period (P4), ordered by deadline.
///
/// A sorted array with a moving head: taking the due pushes costs what is due, not a shift of everything still
/// waiting (with 5,000 sends a second and a 2 s grace, about 10,000 wait at any time), and the dead prefix is
/// compacted only when it dominates, so removal stays amortised O(1).
struct PushSchedule {
    private var entries: [PendingPush] = []
    private var head = 0

    /// The earliest deadline, if any push waits.
    var nextDeadline: Int64? { head < entries.count ? entries[head].deadline : nil }

    /// How many pushes wait.
    var count: Int { entries.count - head }

    /// Adds a push in deadline order (after others with the same deadline). Deadlines mostly arrive in order, so
    /// the search starts at the back.
    mutating func insert(_ push: PendingPush) {
        var index = entries.count
        while index > head, entries[index - 1].deadline > push.deadline { index -= 1 }
        entries.insert(push, at: index)
    }

    /// Removes and returns the pushes due at `now`, earliest first.
    mutating func takeDue(now: Int64) -> ArraySlice<PendingPush> {
        var end = head
        while end < entries.count, entries[end].deadline <= now { end += 1 }
        guard end > head else { return [] }
        let due = entries[head..<end]
        head = end
        if head == entries.count {
            entries.removeAll(keepingCapacity: true)
            head = 0
        } else if head >= 256, head * 2 >= entries.count {
            entries.removeFirst(head)
            head = 0
        }
        return due
    }
}
