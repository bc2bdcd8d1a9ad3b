import Synchronization

/// How many log lines of one kind may be written: `linesPerSecond` sustained with bursts of `burst`, and how often the
/// count of suppressed lines is reported.
public struct LogRateLimit: Sendable, Equatable {
    /// Sustained lines per second (at least 1).
    public var linesPerSecond: Int
    /// Lines allowed at once after a quiet spell (at least 1).
    public var burst: Int
    /// A count of suppressed lines is reported once this many microseconds have passed since the first of them.
    public var summaryIntervalMicroseconds: Int64

    /// - Parameters:
    ///   - linesPerSecond: sustained rate; values below 1 are raised to 1.
    ///   - burst: lines at once; defaults to `linesPerSecond`.
    ///   - summaryIntervalMilliseconds: how long suppressed lines are counted before one line reports them.
    public init(linesPerSecond: Int, burst: Int? = nil, summaryIntervalMilliseconds: Int = 10_000) {
        self.linesPerSecond = max(1, linesPerSecond)
        self.burst = max(1, burst ?? linesPerSecond)
        self.summaryIntervalMicroseconds = Int64(max(1, summaryIntervalMilliseconds)) * 1_000
    }
}

/// A token bucket for log lines of one kind, safe to use from every thread without a lock, so the code that notices
/// an abuse (a loop thread refusing a connection) can ask "may I log this?" without contending with other loops or
/// allocating anything.
///
/// The bucket is kept as one number, its theoretical arrival time (GCRA, the "virtual scheduling" form of a token
/// bucket): a line is allowed when it would not push that time more than the burst ahead of now. One
/// compare-and-exchange per line; a refused line only bumps the suppressed count.
///
/// Time is a parameter (monotonic microseconds), so tests drive it; ``LimitWarnings`` passes the monotonic clock.
///
/// ```swift
/// let limiter = LogRateLimiter(LogRateLimit(linesPerSecond: 10))
/// if limiter.admit(now: now) { logger.warning("...") }
/// if let summary = limiter.takeSummary(now: now) { logger.warning("suppressed \(summary.count) ...") }
/// ```
public final class LogRateLimiter: Sendable {
    /// Lines suppressed since the previous summary, and since when.
    public struct Summary: Sendable, Equatable {
        /// Lines suppressed.
        public var count: Int
        /// Microseconds from the first of them to the summary.
        public var windowMicroseconds: Int64
    }

    /// The limit it enforces.
    public let limit: LogRateLimit
    private let intervalMicroseconds: Int64
    /// How far ahead of now the theoretical arrival time may run: the burst minus the line being admitted.
    private let toleranceMicroseconds: Int64
    private let theoreticalArrival: Atomic<Int64>
    private let suppressed = Atomic<Int>(0)
    /// When the first line after the previous summary was suppressed (valid while `suppressed` > 0).
    private let firstSuppressedAt = Atomic<Int64>(0)

    /// - Parameter limit: the rate, burst and summary interval.
    public init(_ limit: LogRateLimit) {
        self.limit = limit
        intervalMicroseconds = max(1, 1_000_000 / Int64(limit.linesPerSecond))
        toleranceMicroseconds = Int64(limit.burst - 1) * intervalMicroseconds
        theoreticalArrival = Atomic(.min / 2)
    }

    /// Whether a line may be written at `now` (monotonic microseconds); when not, it is counted as suppressed.
    public func admit(now: Int64) -> Bool {
        var arrival = theoreticalArrival.load(ordering: .relaxed)
        while true {
            let next = max(arrival, now) + intervalMicroseconds
            if next - now > toleranceMicroseconds + intervalMicroseconds {
                if suppressed.wrappingAdd(1, ordering: .relaxed).oldValue == 0 {
                    firstSuppressedAt.store(now, ordering: .relaxed)
                }
                return false
            }
            let (exchanged, current) = theoreticalArrival.compareExchange(expected: arrival, desired: next, ordering: .relaxed)
            if exchanged { return true }
            arrival = current
        }
    }

    /// Lines suppressed so far and not yet reported.
    public var suppressedCount: Int { suppressed.load(ordering: .relaxed) }

    /// The suppressed lines to report at `now`, and resets the count: nil when none were suppressed, or when the
    /// first of them is more recent than the summary interval (unless `force`, for a final report at shutdown).
    public func takeSummary(now: Int64, force: Bool = false) -> Summary? {
        guard suppressed.load(ordering: .relaxed) > 0 else { return nil }
        let since = firstSuppressedAt.load(ordering: .relaxed)
        guard force || now - since >= limit.summaryIntervalMicroseconds else { return nil }
        let count = suppressed.exchange(0, ordering: .relaxed)
        guard count > 0 else { return nil }
        return Summary(count: count, windowMicroseconds: max(0, now - since))
    }
}
