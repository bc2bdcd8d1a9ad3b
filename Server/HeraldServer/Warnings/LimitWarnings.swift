import Glibc
import HeraldClock
import HeraldNet
import Logging
import Synchronization

/// Warnings for limits that fire on untrusted input: failed authentication, connections refused by a limit, slow
/// consumers closed, descriptors exhausted, store writes failing. Each is logged at `warning` with the peer and the
/// reason (never a token or key), but at most ``LogRateLimit/linesPerSecond`` lines per kind, so an attacker cannot
/// turn a flood of refusals into a flood of log lines (disk, CPU, the operator's attention); the suppressed lines
/// are counted and reported later in one line per kind: "suppressed 1234 similar warnings in the last 10 s".
///
/// ``warn(_:_:metadata:)`` is safe from any thread (loop threads, the sync thread) and takes no lock: one atomic
/// compare-and-exchange decides, and the message and metadata are built only when the line is written.
/// ``tick(loops:)``, called periodically by one thread (``HeraldHTTPServer/runUntilShutdown()``), writes the summaries
/// and turns HeraldNet's descriptor-exhaustion counters (bumped on the accept path, which has no logger) into
/// warnings.
///
/// ```swift
/// warnings.warn(.authenticationFailed, "refused: authentication failed", metadata: ["peer": "\(peer)"])
/// ```
public final class LimitWarnings: Sendable {
    /// The kinds of warning, each with its own limit.
    public enum Kind: Int, CaseIterable, Sendable {
        /// A /sync upgrade or an API request refused 401/403.
        case authenticationFailed
        /// A connection refused by `--max-connections`, `--max-connections-per-ip`, `--max-connections-per-user` or
        /// `--handshake-rate-per-ip`.
        case connectionRefused
        /// A connection closed because its outbound queue hit `--max-queued-bytes`.
        case slowConsumer
        /// `accept4` failed with EMFILE/ENFILE/ENOBUFS/ENOMEM.
        case descriptorsExhausted
        /// The store failed a write (disk full, read-only, I/O, busy, corrupt): requests answered `unavailable`.
        case storeWriteFailed
        /// A connection closed with 1008 because unfinished input went over `--max-buffered-input-bytes-per-user` or
        /// `--max-buffered-input-bytes`.
        case inputBudget

        /// The `kind` metadata value.
        public var label: String {
            switch self {
            case .authenticationFailed: "auth_failed"
            case .connectionRefused: "connection_refused"
            case .slowConsumer: "slow_consumer"
            case .descriptorsExhausted: "descriptors_exhausted"
            case .storeWriteFailed: "store_write_failed"
            case .inputBudget: "input_budget"
            }
        }
    }

    private let logger: Logger
    private let limiters: [LogRateLimiter]
    private let clock: @Sendable () -> Int64
    /// Descriptor exhaustions already reported, per loop index; used only by the thread calling ``tick(loops:)``.
    private let reportedExhaustions = Mutex<[Int: Int]>([:])

    /// - Parameters:
    ///   - logger: where the warnings go.
    ///   - limit: the limit of each kind.
    ///   - clock: monotonic microseconds; tests pass their own.
    public init(logger: Logger, limit: LogRateLimit, clock: @escaping @Sendable () -> Int64 = LimitWarnings.monotonicMicroseconds) {
        self.logger = logger
        self.limiters = Kind.allCases.map { _ in LogRateLimiter(limit) }
        self.clock = clock
    }

    /// Logs `message` at warning with `metadata` (plus `kind`) unless this kind is over its limit, in which case the
    /// line is only counted. The autoclosures run only for a line that is written.
    public func warn(_ kind: Kind, _ message: @autoclosure () -> Logger.Message, metadata: @autoclosure () -> Logger.Metadata = [:]) {
        // Below warning nothing would be written anyway: don't spend tokens (or suppress) on it.
        guard logger.logLevel <= .warning, limiters[kind.rawValue].admit(now: clock()) else { return }
        var fields = metadata()
        fields["kind"] = "\(kind.label)"
        logger.warning(message(), metadata: fields)
    }

    /// Lines of `kind` suppressed and not yet reported.
    public func suppressedCount(_ kind: Kind) -> Int { limiters[kind.rawValue].suppressedCount }

    /// The periodic work: warns about descriptor exhaustion the loops counted since the last tick, then reports
    /// suppressed lines whose summary interval has passed (all of them with `final`, at shutdown).
    public func tick(loops: [EventLoop], final: Bool = false) {
        reportDescriptorExhaustion(loops)
        let now = clock()
        for kind in Kind.allCases {
            guard let summary = limiters[kind.rawValue].takeSummary(now: now, force: final) else { continue }
            logger.warning("suppressed \(summary.count) similar warnings in the last \(Self.seconds(summary.windowMicroseconds)) s",
                           metadata: ["kind": "\(kind.label)", "suppressed": "\(summary.count)"])
        }
    }

    private func reportDescriptorExhaustion(_ loops: [EventLoop]) {
        for loop in loops {
            let total = loop.counters.descriptorExhaustions.load(ordering: .relaxed)
            let new = reportedExhaustions.withLock { reported -> Int in
                defer { reported[loop.index] = total }
                return total - reported[loop.index, default: 0]
            }
            guard new > 0 else { continue }
            let code = loop.counters.lastDescriptorExhaustionErrno.load(ordering: .relaxed)
            warn(.descriptorsExhausted, "accept failed: out of file descriptors or kernel memory; the listener pauses one tick each time",
                 metadata: ["errno": "\(Self.errnoName(code))", "times": "\(new)", "loop": "\(loop.index)"])
        }
    }

    /// The monotonic clock in microseconds: the default clock.
    @Sendable public static func monotonicMicroseconds() -> Int64 { Int64(MonotonicClock.microseconds()) }

    /// "0.5", "3.2", "10" (whole seconds from 10 on).
    static func seconds(_ microseconds: Int64) -> String {
        let tenths = (microseconds + 50_000) / 100_000
        return tenths >= 100 ? "\(tenths / 10)" : "\(tenths / 10).\(tenths % 10)"
    }

    static func errnoName(_ code: Int32) -> String {
        switch code {
        case EMFILE: "EMFILE"
        case ENFILE: "ENFILE"
        case ENOBUFS: "ENOBUFS"
        case ENOMEM: "ENOMEM"
        default: "\(code)"
        }
    }
}
