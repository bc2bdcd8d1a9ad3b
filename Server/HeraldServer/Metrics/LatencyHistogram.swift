import Glibc
import Synchronization

/// A fixed-bucket histogram of durations in microseconds, safe to observe from any thread: one relaxed atomic add
/// per bucket hit plus the sum and count, no lock (Prometheus `histogram` semantics: cumulative `le` buckets).
public final class LatencyHistogram: Sendable {
    /// Upper bounds of the buckets in microseconds (the last, +Inf, is implicit).
    public let boundsMicroseconds: [Int]
    private let buckets: [Counter]
    private let sumMicroseconds = Counter()
    private let total = Counter()

    /// - Parameter boundsMicroseconds: ascending upper bounds.
    public init(boundsMicroseconds: [Int] = [100, 250, 500, 1_000, 2_500, 5_000, 10_000, 25_000, 50_000, 100_000, 250_000, 1_000_000]) {
        self.boundsMicroseconds = boundsMicroseconds
        self.buckets = boundsMicroseconds.map { _ in Counter() }
    }

    /// Records one duration.
    public func observe(microseconds: Int) {
        let value = max(0, microseconds)
        // Few buckets: a linear scan beats a binary search and touches one cache line.
        if let index = boundsMicroseconds.firstIndex(where: { value <= $0 }) {
            buckets[index].add(1)
        }
        sumMicroseconds.add(value)
        total.add(1)
    }

    /// Cumulative counts per bound (not including +Inf), the count of every observation, and the sum in µs.
    public func snapshot() -> (cumulative: [Int], count: Int, sumMicroseconds: Int) {
        var running = 0
        var cumulative: [Int] = []
        cumulative.reserveCapacity(buckets.count)
        for bucket in buckets {
            running += bucket.load()
            cumulative.append(running)
        }
        let count = total.load()
        // A concurrent observe may have bumped a bucket but not yet the total: never report count < a bucket.
        return (cumulative, max(count, running), sumMicroseconds.load())
    }
}
