import Foundation

/// A token bucket per API key: `ratePerSecond` sustained, `burst` at once. Exceeding it answers 429 with
/// `Retry-After`. Only verified keys get a bucket, so a stranger cannot spend another key's allowance.
final class APIRateLimiter: @unchecked Sendable {
    // @unchecked: `buckets` is only touched with `lock` held.
    private struct Bucket {
        var tokens: Double
        var updated: Double
    }

    let ratePerSecond: Double
    let burst: Double
    private var buckets: [String: Bucket] = [:]
    private let lock = NSLock()

    /// A non-positive rate disables limiting.
    init(ratePerSecond: Double, burst: Int) {
        self.ratePerSecond = ratePerSecond
        self.burst = Double(max(burst, 1))
    }

    /// Takes one token for `key` at `now` (seconds); returns nil when allowed, else the seconds until one is available.
    func take(key: String, now: Double) -> Int? {
        guard ratePerSecond > 0 else { return nil }
        lock.lock()
        defer { lock.unlock() }
        var bucket = buckets[key] ?? Bucket(tokens: burst, updated: now)
        bucket.tokens = min(burst, bucket.tokens + max(0, now - bucket.updated) * ratePerSecond)
        bucket.updated = now
        defer { buckets[key] = bucket }
        if bucket.tokens >= 1 {
            bucket.tokens -= 1
            return nil
        }
        // A tiny rate (1e-300/s) makes this wait astronomically long: cap it (at ~31 years) before the conversion,
        // which would trap.
        return max(1, Int(min(((1 - bucket.tokens) / ratePerSecond).rounded(.up), 1e9)))
    }
}
