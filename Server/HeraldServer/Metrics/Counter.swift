import HeraldNet
import Synchronization

/// One metrics counter or gauge: an `Atomic<Int>` in a class, so counters can sit in arrays and be used without
/// importing `Synchronization`. Every operation is relaxed: metrics need no ordering with other memory.
public final class Counter: Sendable {
    private let value: Atomic<Int>

    /// A counter starting at `initial`.
    public init(_ initial: Int = 0) { value = Atomic(initial) }

    /// Adds `amount` (may be negative for gauges).
    @inline(__always) public func add(_ amount: Int) { value.wrappingAdd(amount, ordering: .relaxed) }
    /// Adds `amount` to a counter only the calling thread ever changes (a loop's own ``ServerMetrics/LoopMetrics``):
    /// no locked instruction; see ``Synchronization/Atomic/addAsSoleWriter(_:)``.
    @inline(__always) public func addAsSoleWriter(_ amount: Int) { value.addAsSoleWriter(amount) }
    /// Subtracts `amount` (gauges).
    @inline(__always) public func subtract(_ amount: Int) { value.wrappingSubtract(amount, ordering: .relaxed) }
    /// Replaces the value (totals published by their single owner).
    public func store(_ newValue: Int) { value.store(newValue, ordering: .relaxed) }
    /// The current value.
    public func load() -> Int { value.load(ordering: .relaxed) }
}
