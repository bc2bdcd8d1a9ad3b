import HeraldStoreProtocol
import Synchronization

/// Per-provider delivery counts and the time from a push's decision to the provider accepting it, for `/metrics`.
public final class PushMetrics: Sendable {
    /// One provider's counters; relaxed atomics, written by its workers, read by the metrics handler.
    public final class Provider: Sendable {
        public let sent = Atomic<Int>(0)
        public let failed = Atomic<Int>(0)
        public let retried = Atomic<Int>(0)
        public let dropped = Atomic<Int>(0)
        public let targetsRemoved = Atomic<Int>(0)
        /// Pushes taken out of the queue because their handling died with its worker too often (never sent).
        public let quarantined = Atomic<Int>(0)
        /// Accepted pushes by latency bucket (``latencyBounds``, then +Inf), and the sum of latencies in ms.
        let latencyBuckets: [Tally]
        let latencySumMilliseconds = Atomic<Int>(0)

        init() { latencyBuckets = (0...PushMetrics.latencyBounds.count).map { _ in Tally() } }

        func recordLatency(_ milliseconds: Int64) {
            let bucket = PushMetrics.latencyBounds.firstIndex { milliseconds <= $0 } ?? PushMetrics.latencyBounds.count
            latencyBuckets[bucket].count.add(1, ordering: .relaxed)
            latencySumMilliseconds.add(Int(max(milliseconds, 0)), ordering: .relaxed)
        }
    }

    /// Histogram bucket upper bounds, ms.
    static let latencyBounds: [Int64] = [5, 10, 25, 50, 100, 250, 500, 1_000, 2_500, 5_000, 10_000, 30_000, 60_000]

    public let providers: [PushProvider: Provider]

    public init(providers: [PushProvider]) {
        self.providers = Dictionary(uniqueKeysWithValues: providers.map { ($0, Provider()) })
    }

    /// The Prometheus text of every counter and the latency histogram, labelled by provider.
    public func prometheusText() -> String {
        var out = ""
        let ordered = providers.keys.sorted { $0.rawValue < $1.rawValue }
        for (name, help, read) in [
            ("herald_push_sent_total", "Pushes the provider accepted.", { (p: Provider) in p.sent.load(ordering: .relaxed) }),
            ("herald_push_failed_total", "Attempts that failed (no answer, or an error status).", { $0.failed.load(ordering: .relaxed) }),
            ("herald_push_retried_total", "Attempts scheduled again after a failure.", { $0.retried.load(ordering: .relaxed) }),
            ("herald_push_dropped_total", "Pushes given up (expired, refused for good, too many attempts).", { $0.dropped.load(ordering: .relaxed) }),
            ("herald_push_targets_removed_total", "Targets removed because the provider said they are gone.", { $0.targetsRemoved.load(ordering: .relaxed) }),
            ("herald_push_quarantined_total", "Pushes taken out of the queue after their handling died with its worker repeatedly.", { $0.quarantined.load(ordering: .relaxed) }),
        ] as [(String, String, (Provider) -> Int)] {
            out += "# HELP \(name) \(help)\n# TYPE \(name) counter\n"
            for provider in ordered { out += "\(name){provider=\"\(provider.rawValue)\"} \(read(providers[provider]!))\n" }
        }
        let histogram = "herald_push_latency_milliseconds"
        out += "# HELP \(histogram) Time from a push's decision to the provider accepting it.\n# TYPE \(histogram) histogram\n"
        for provider in ordered {
            let counters = providers[provider]!
            var cumulative = 0
            for (index, bound) in Self.latencyBounds.enumerated() {
                cumulative += counters.latencyBuckets[index].count.load(ordering: .relaxed)
                out += "\(histogram)_bucket{provider=\"\(provider.rawValue)\",le=\"\(bound)\"} \(cumulative)\n"
            }
            cumulative += counters.latencyBuckets[Self.latencyBounds.count].count.load(ordering: .relaxed)
            out += "\(histogram)_bucket{provider=\"\(provider.rawValue)\",le=\"+Inf\"} \(cumulative)\n"
            out += "\(histogram)_sum{provider=\"\(provider.rawValue)\"} \(counters.latencySumMilliseconds.load(ordering: .relaxed))\n"
            out += "\(histogram)_count{provider=\"\(provider.rawValue)\"} \(cumulative)\n"
        }
        return out
    }
}

/// One atomic count in a class, so counts can sit in an array (an `Atomic` cannot be copied into one).
final class Tally: Sendable {
    let count = Atomic<Int>(0)
}
