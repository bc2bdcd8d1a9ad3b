@testable import HeraldServer
import HeraldSync
import Testing

/// The token buckets behind the per-IP handshake rate, the /sync send rate and the /api/v1 key rate answer how long
/// to wait; with a tiny configured rate that wait is astronomically long and must be capped, not converted with a trap.
@Suite("Engine: rate limit waits")
struct EngineRateLimitTests {
    @Test("TokenBuckets: with a rate of 1e-300/s the second take waits a capped time instead of trapping")
    func tinyRateWaitIsCapped() throws {
        var buckets = TokenBuckets<String>(ratePerSecond: 1e-300, burst: 1)
        let first = buckets.take("a", nowMs: 0)
        #expect(first == nil)
        let second = buckets.take("a", nowMs: 1)
        let wait = try #require(second)
        #expect(wait >= 1_000_000_000)
        // Callers turn it into Retry-After seconds as (wait + 999) / 1000: that must not overflow either.
        #expect(wait <= Int64.max - 999)
    }

    @Test("APIRateLimiter: with a rate of 1e-300/s the second request gets a capped Retry-After instead of trapping")
    func tinyAPIRateWaitIsCapped() throws {
        let limiter = APIRateLimiter(ratePerSecond: 1e-300, burst: 1)
        #expect(limiter.take(key: "k", now: 0) == nil)
        let wait = try #require(limiter.take(key: "k", now: 0.001))
        #expect(wait >= 1_000_000)
    }

    @Test("TokenBuckets: an ordinary rate still answers the exact wait (2/s, empty bucket: 500 ms)")
    func ordinaryRateWait() {
        var buckets = TokenBuckets<String>(ratePerSecond: 2, burst: 1)
        let first = buckets.take("a", nowMs: 0)
        let second = buckets.take("a", nowMs: 0)
        #expect(first == nil)
        #expect(second == 500)
    }
}
