import Foundation
@testable import HeraldServer
import Logging
import Synchronization
import Testing

/// The rate limit on warnings: logging must not become the attack. Time is injected (microseconds), so each rule is
/// checked at exact instants.
@Suite("Security logging: rate limiter (virtual time)")
struct LogRateLimiterTests {
    static let second: Int64 = 1_000_000

    @Test("A burst of `burst` lines is allowed at once, the next is suppressed and counted")
    func burstThenSuppressed() {
        let limiter = LogRateLimiter(LogRateLimit(linesPerSecond: 5, burst: 3))
        let now: Int64 = 42 * Self.second
        #expect((0..<3).allSatisfy { _ in limiter.admit(now: now) })
        #expect(!limiter.admit(now: now))
        #expect(!limiter.admit(now: now))
        #expect(limiter.suppressedCount == 2)
    }

    @Test("Tokens come back at the sustained rate: one line per 1/rate seconds, never more")
    func refillsAtRate() {
        let limiter = LogRateLimiter(LogRateLimit(linesPerSecond: 10, burst: 1))
        let start: Int64 = 1_000 * Self.second
        #expect(limiter.admit(now: start))
        #expect(!limiter.admit(now: start + 99_999), "a token takes 100 ms at 10 lines/s")
        #expect(limiter.admit(now: start + 100_000))
        // A flood of one call per millisecond for 10 s gets exactly 10 lines/s through.
        var allowed = 0
        for ms in 1...10_000 where limiter.admit(now: start + 100_000 + Int64(ms) * 1_000) { allowed += 1 }
        #expect(allowed == 100)
    }

    @Test("A long quiet spell refills only up to the burst")
    func refillCappedAtBurst() {
        let limiter = LogRateLimiter(LogRateLimit(linesPerSecond: 2, burst: 4))
        let now: Int64 = 3_600 * Self.second
        #expect((0..<4).filter { _ in limiter.admit(now: now) }.count == 4)
        let later = now + 3_600 * Self.second
        #expect((0..<10).filter { _ in limiter.admit(now: later) }.count == 4)
    }

    @Test("The summary comes once the interval since the first suppressed line has passed, counts each suppressed line once, and resets")
    func summaryAfterInterval() throws {
        let limiter = LogRateLimiter(LogRateLimit(linesPerSecond: 1, burst: 1, summaryIntervalMilliseconds: 10_000))
        let start: Int64 = 50 * Self.second
        #expect(limiter.takeSummary(now: start) == nil, "nothing suppressed, nothing to say")
        #expect(limiter.admit(now: start))
        for offset in 1...1_234 { _ = limiter.admit(now: start + Int64(offset)) }
        // The first suppressed line came at start + 1 µs: its summary is due 10 s later, not a microsecond sooner.
        #expect(limiter.takeSummary(now: start + 10 * Self.second) == nil, "not before the interval")
        let summary = try #require(limiter.takeSummary(now: start + 1 + 10 * Self.second))
        #expect(summary.count == 1_234)
        #expect(summary.windowMicroseconds == 10 * Self.second)
        #expect(limiter.takeSummary(now: start + 30 * Self.second) == nil, "reported once")
        #expect(limiter.suppressedCount == 0)
    }

    @Test("At shutdown the summary is forced out before its interval")
    func forcedSummary() throws {
        let limiter = LogRateLimiter(LogRateLimit(linesPerSecond: 1, burst: 1))
        #expect(limiter.admit(now: Self.second))
        #expect(!limiter.admit(now: Self.second + 10))
        #expect(try #require(limiter.takeSummary(now: Self.second + 20, force: true)).count == 1)
    }

    @Test("Many threads at once: every call is either written or counted, and no more than the burst gets through at one instant")
    func concurrentCallersAccountForEveryLine() async {
        let limiter = LogRateLimiter(LogRateLimit(linesPerSecond: 10, burst: 10))
        let allowed = Counter()
        let now: Int64 = 7 * Self.second
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    for _ in 0..<5_000 where limiter.admit(now: now) { allowed.add(1) }
                }
            }
        }
        #expect(allowed.load() == 10)
        #expect(limiter.suppressedCount == 8 * 5_000 - 10)
    }
}

/// ``LimitWarnings`` on a logger that records: the lines an operator would see.
@Suite("Security logging: limit warnings (virtual time)")
struct LimitWarningsTests {
    @Test("A flood of one kind writes the burst at warning with its kind, the rest in one \"suppressed N similar warnings\" line; other kinds are unaffected")
    func floodIsSummarised() {
        let clock = ManualMicroseconds(1_000_000)
        let recorder = RecordingLogHandler.Lines()
        let warnings = LimitWarnings(logger: Logger(label: "test") { _ in RecordingLogHandler(lines: recorder) },
                                     limit: LogRateLimit(linesPerSecond: 5, summaryIntervalMilliseconds: 10_000), clock: clock.read)
        for n in 0..<2_000 {
            warnings.warn(.authenticationFailed, "refused: authentication failed", metadata: ["peer": "10.0.0.\(n % 200):1"])
        }
        warnings.warn(.slowConsumer, "closed slow consumer", metadata: ["peer": "10.0.0.1:2"])
        #expect(recorder.all.filter { $0.message == "refused: authentication failed" }.count == 5)
        #expect(recorder.all.allSatisfy { $0.level == .warning })
        #expect(recorder.all.contains { $0.message == "closed slow consumer" && $0.metadata["kind"] == "slow_consumer" })
        warnings.tick(loops: [])
        #expect(!recorder.all.contains { $0.message.hasPrefix("suppressed") }, "the summary waits for its interval")
        clock.advance(by: 10_000_000)
        warnings.tick(loops: [])
        let summaries = recorder.all.filter { $0.message.hasPrefix("suppressed") }
        #expect(summaries.map(\.message) == ["suppressed 1995 similar warnings in the last 10 s"])
        #expect(summaries.first?.metadata["kind"] == "auth_failed")
    }

    @Test("Below warning level nothing is spent or counted")
    func silentBelowWarning() {
        let recorder = RecordingLogHandler.Lines()
        var logger = Logger(label: "test") { _ in RecordingLogHandler(lines: recorder) }
        logger.logLevel = .error
        let warnings = LimitWarnings(logger: logger, limit: LogRateLimit(linesPerSecond: 1), clock: { 0 })
        for _ in 0..<10 { warnings.warn(.storeWriteFailed, "store write failed") }
        #expect(recorder.all.isEmpty)
        #expect(warnings.suppressedCount(.storeWriteFailed) == 0)
    }
}

/// A clock the test moves.
final class ManualMicroseconds: Sendable {
    private let now: Atomic<Int64>
    init(_ start: Int64) { now = Atomic(start) }
    func advance(by microseconds: Int64) { now.add(microseconds, ordering: .relaxed) }
    @Sendable func read() -> Int64 { now.load(ordering: .relaxed) }
}

/// A swift-log handler that keeps every line, for assertions.
struct RecordingLogHandler: LogHandler {
    struct Line: Sendable {
        var level: Logger.Level
        var message: String
        var metadata: [String: String]
    }

    final class Lines: Sendable {
        private let lines = Mutex<[Line]>([])
        func append(_ line: Line) { lines.withLock { $0.append(line) } }
        var all: [Line] { lines.withLock { $0 } }
    }

    let lines: Lines
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        var fields: [String: String] = [:]
        for (key, value) in metadata.merging(event.metadata ?? [:], uniquingKeysWith: { $1 }) { fields[key] = "\(value)" }
        lines.append(Line(level: event.level, message: "\(event.message)", metadata: fields))
    }
}
