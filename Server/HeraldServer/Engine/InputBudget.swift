import Synchronization

/// Bytes of received input that the server holds for connections which have not finished with it: unfinished
/// WebSocket messages (partly read frames, fragments waiting for the rest) and large /sync requests read but not yet
/// answered. One budget covers the whole server and one each user; a connection charges both.
///
/// Charged only when what a connection holds changes size: when a message spans reads, or a large request waits for
/// its answer. A small message read whole charges nothing, so the common path never touches the counter; a change is
/// one atomic add, never a lock.
final class InputBudget: Sendable {
    /// Most bytes charged at once; 0: unlimited.
    let limit: Int
    private let charged = Atomic<Int>(0)

    /// - Parameter limit: most bytes charged at once; 0 (or less): unlimited.
    init(limit: Int) {
        self.limit = max(limit, 0)
    }

    /// Bytes charged now.
    var chargedBytes: Int { charged.load(ordering: .relaxed) }

    /// Whether more is charged than the limit allows.
    var isOver: Bool { limit > 0 && charged.load(ordering: .relaxed) > limit }

    /// Charges `delta` bytes (a negative delta gives them back) and returns whether the budget is over its limit after.
    /// Deltas are differences of buffer sizes, far from overflowing; the wrapping add keeps a bug from trapping.
    func charge(_ delta: Int) -> Bool {
        let total = charged.wrappingAdd(delta, ordering: .relaxed).newValue
        return limit > 0 && total > limit
    }
}
