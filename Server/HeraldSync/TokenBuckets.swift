/// A token bucket per key (`ratePerSecond` sustained, `burst` at once), for one thread: the caller serialises
/// access (the sync thread owns its instance; the server's connection admission holds its own behind a mutex).
///
/// Idle keys are forgotten once their bucket is full again, so a stream of strangers cannot grow it without bound.
package struct TokenBuckets<Key: Hashable> {
    private struct Bucket {
        var tokens: Double
        var updatedMs: Int64
    }

    /// Sustained rate; 0 or less disables limiting.
    package let ratePerSecond: Double
    package let burst: Double
    private var buckets: [Key: Bucket] = [:]
    /// When the map is next swept for full (forgettable) buckets.
    private var sweepAtCount = 1024

    package init(ratePerSecond: Double, burst: Double) {
        self.ratePerSecond = ratePerSecond
        self.burst = max(burst, 1)
    }

    package var isEnabled: Bool { ratePerSecond > 0 }

    /// Takes one token for `key` at `nowMs`; nil when allowed, else the milliseconds until a token is available.
    package mutating func take(_ key: Key, nowMs: Int64) -> Int64? {
        guard ratePerSecond > 0 else { return nil }
        var bucket = buckets[key] ?? Bucket(tokens: burst, updatedMs: nowMs)
        bucket.tokens = min(burst, bucket.tokens + Double(max(0, nowMs - bucket.updatedMs)) / 1000 * ratePerSecond)
        bucket.updatedMs = nowMs
        let waitMs: Int64?
        if bucket.tokens >= 1 {
            bucket.tokens -= 1
            waitMs = nil
        } else {
            // A tiny rate (1e-300/s) makes this wait astronomically long: cap it (at ~31 years, so callers can still
            // add to it) before the conversion, which would trap.
            waitMs = max(1, Int64(min(((1 - bucket.tokens) / ratePerSecond * 1000).rounded(.up), 1e12)))
        }
        buckets[key] = bucket
        if buckets.count >= sweepAtCount { sweep(nowMs: nowMs) }
        return waitMs
    }

    /// Drops buckets that have refilled completely (they behave exactly like absent ones).
    private mutating func sweep(nowMs: Int64) {
        let rate = ratePerSecond, burst = self.burst
        buckets = buckets.filter { _, bucket in bucket.tokens + Double(max(0, nowMs - bucket.updatedMs)) / 1000 * rate < burst }
        sweepAtCount = max(1024, buckets.count * 2)
    }
}
