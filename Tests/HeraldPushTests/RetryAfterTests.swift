import HeraldPush
import Testing

/// A provider's Retry-After is untrusted input (RFC 9110 §10.2.3): every value, of any size, sign or shape, is read
/// into a bounded wait, and the retry policy's arithmetic saturates, so nothing a provider answers can trap the server.
@Suite("Push: Retry-After and the retry policy never trap")
struct RetryAfterTests {
    static let now: Int64 = 1_795_000_000_000
    static let hour = RetryAfter.maximumSeconds

    @Test("delay-seconds as libcurl hands the header line (spaces, CRLF), read exactly below the limit")
    func delaySeconds() {
        #expect(RetryAfter(header: "4\r\n") == .delay(seconds: 4))
        #expect(RetryAfter(header: " 120 ") == .delay(seconds: 120))
        #expect(RetryAfter(header: "0") == .delay(seconds: 0))
        #expect(HTTPResponse(status: 429, headers: ["retry-after": "4\r\n"]).retryAfter?.seconds(now: Self.now) == 4)
        #expect(HTTPResponse(status: 503).retryAfter == nil)
    }

    @Test("Huge delay-seconds (Int64.max, Int64.max / 1000, beyond Int64) saturate and are cut to the one-hour limit")
    func hugeDelays() {
        for text in ["9223372036854775807", "9223372036854775", "9223372036854775808", String(repeating: "9", count: 400)] {
            let value = RetryAfter(header: text)
            #expect(value != nil, "\(text.prefix(30)) is delay-seconds")
            #expect(value?.seconds(now: Self.now) == Self.hour, "\(text.prefix(30)) waits the limit, an hour")
            #expect(value?.seconds(now: Int64.max) == Self.hour)
            #expect(value?.seconds(now: Self.now, limit: 2) == 2, "a lower limit (--push-max-retry-after-seconds) wins")
        }
        #expect(RetryAfter(header: "9223372036854775808") == .delay(seconds: Int64.max))
    }

    @Test("Negative, fractional, signed and garbage values are no Retry-After at all: the backoff applies")
    func garbage() {
        for text in ["-1", "-9223372036854775808", "+5", "1.5", "1e9", "soon", "", "   ", "0x10", "5 s", "٣", "NaN", "Fri, 31 Dec 9999", "\u{0}"] {
            #expect(RetryAfter(header: text) == nil, "\(text.debugDescription)")
        }
    }

    @Test("HTTP-date in all three forms RFC 9110 §5.6.7 makes recipients accept; the past asks for no wait")
    func httpDates() {
        let sunday1994: Int64 = 784_111_777
        #expect(RetryAfter(header: "Sun, 06 Nov 1994 08:49:37 GMT") == .date(epochSeconds: sunday1994))
        #expect(RetryAfter(header: "Sunday, 06-Nov-94 08:49:37 GMT") == .date(epochSeconds: sunday1994))
        #expect(RetryAfter(header: "Sun Nov  6 08:49:37 1994") == .date(epochSeconds: sunday1994))
        #expect(RetryAfter(header: "Sun, 06 Nov 1994 08:49:37 GMT")?.seconds(now: Self.now) == 0, "a date in the past: at once")
        #expect(RetryAfter(header: "Sun, 06 Nov 1994 08:49:37 GMT")?.seconds(now: sunday1994 * 1_000 - 30_000) == 30)
        #expect(RetryAfter(header: "Thu, 01 Jan 1970 00:00:00 GMT") == .date(epochSeconds: 0))
    }

    @Test("An HTTP-date far in the future (year 9999) waits the one-hour limit; malformed dates are refused")
    func farFutureDate() {
        let value = RetryAfter(header: "Fri, 31 Dec 9999 23:59:59 GMT")
        #expect(value == .date(epochSeconds: 253_402_300_799))
        #expect(value?.seconds(now: Self.now) == Self.hour)
        #expect(value?.seconds(now: Int64.min) == Self.hour, "no overflow against any clock")
        #expect(value?.seconds(now: Int64.max) == 0)
        for text in [
            "Fri, 32 Dec 9999 23:59:59 GMT", "Fri, 31 Dek 9999 23:59:59 GMT", "Fri, 31 Dec 99999 23:59:59 GMT", "Fri, 31 Dec 9999 24:00:00 GMT",
            "Fri, 31 Dec 9999 23:59:59 UTC", "Fri 31 Dec 9999 23:59:59 GMT", "Fri, 31 Dec 0000 23:59:59 GMT", "Fri, -1 Dec 2026 23:59:59 GMT",
        ] {
            #expect(RetryAfter(header: text) == nil, "\(text)")
        }
    }

    @Test("The policy with hostile inputs: never traps, never sooner than now, never later than now + max(backoff cap, Retry-After limit)")
    func policyExtremes() {
        let policy = PushRetryPolicy()
        let extremes: [Int64] = [Int64.min, -1, 0, 1, 3_600, 9_223_372_036_854_775, Int64.max]
        for retryAfter in extremes + [nil] as [Int64?] {
            for now in [0, Self.now, Int64.max - 5, Int64.max] as [Int64] {
                for attempts in [Int.min, 0, 1, 31, 64, Int.max] {
                    for random in [0, 0.5, 1, -.infinity, .infinity, .nan] as [Double] {
                        let at = policy.nextAttempt(afterAttempts: attempts, retryAfterSeconds: retryAfter, now: now, random: random)
                        #expect(at >= now)
                        let bound = now.addingReportingOverflow(max(policy.maxBackoffMilliseconds, Self.hour * 1_000))
                        #expect(bound.overflow || at <= bound.partialValue)
                    }
                }
            }
        }
        #expect(policy.nextAttempt(afterAttempts: 1, retryAfterSeconds: Int64.max, now: Self.now, random: 0) == Self.now + Self.hour * 1_000)
        let hostile = PushRetryPolicy(baseMilliseconds: Int64.max, maxBackoffMilliseconds: Int64.max, maxRetryAfterSeconds: Int64.max)
        #expect(hostile.nextAttempt(afterAttempts: 40, retryAfterSeconds: Int64.max, now: Self.now, random: 1) == Int64.max, "saturates")
    }

    @Test("Property: any header text and any clock give a wait within 0...limit (seeded pseudo-fuzz, 20,000 values)")
    func fuzz() {
        var random = SplitMix64(seed: 0x4845_5241_4C44)
        let pieces = [
            "0", "1", "9", "99999999999999999999", "-", "+", ",", " ", ":", "GMT", "Mon", "Sunday", "Nov", "Dec", "06", "9999", "94", "08:49:37", "23:59:60",
            "\r\n", "\t", "é", "٣", "1e3", ".", "-Nov-", "31", "00",
        ]
        let policy = PushRetryPolicy()
        for _ in 0..<20_000 {
            var text = ""
            for _ in 0..<Int(random.next() % 8) { text += pieces[Int(random.next() % UInt64(pieces.count))] }
            let now = Int64(bitPattern: random.next())
            let limit = Int64(bitPattern: random.next()) % 10_000
            guard let value = RetryAfter(header: text) else { continue }
            let seconds = value.seconds(now: now, limit: limit)
            #expect(seconds >= 0 && seconds <= max(limit, 0), "\(text.debugDescription) at \(now)")
            _ = policy.nextAttempt(afterAttempts: Int(truncatingIfNeeded: random.next()), retryAfterSeconds: seconds, now: now, random: 0.5)
        }
    }
}

/// A small seeded generator (SplitMix64), so a failing case replays.
struct SplitMix64 {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
