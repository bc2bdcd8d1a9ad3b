/// What to do with a queued push after its provider answered (or did not).
public enum DeliveryOutcome: Sendable, Equatable {
    /// The provider took it: the row goes.
    case accepted
    /// Try again later: no sooner than the provider's Retry-After (cut to the policy's limit), and after the backoff.
    case retry(after: RetryAfter?, reason: String)
    /// The credentials the request carried were refused as expired or invalid: make new ones, then retry at once.
    case refreshCredentials(reason: String)
    /// The provider says the device's address is gone for good (uninstalled, unsubscribed): forget the target.
    case targetGone(reason: String)
    /// Refused for good (a malformed request, a payload too large): retrying cannot help, the push is dropped.
    case rejected(reason: String)
}

/// Exponential backoff with jitter for retries. A push is retried until it expires (its TTL): an outage of any
/// length short of that loses nothing, and the backoff's cap bounds how long a push waits after the provider is back.
///
/// Every input may come from outside (a provider's Retry-After) or from configuration, so the arithmetic saturates:
/// no value makes it trap, and the answer is always within `now...now + max(maxBackoff, maxRetryAfter)`.
public struct PushRetryPolicy: Sendable {
    /// The first retry's delay; each further one doubles it.
    public var baseMilliseconds: Int64 = 1_000
    /// The longest wait between two attempts.
    public var maxBackoffMilliseconds: Int64 = 60_000
    /// The longest a provider's Retry-After can hold a push back (``RetryAfter/maximumSeconds``, an hour); asking for
    /// more gets this.
    public var maxRetryAfterSeconds: Int64 = RetryAfter.maximumSeconds

    public init(baseMilliseconds: Int64 = 1_000, maxBackoffMilliseconds: Int64 = 60_000, maxRetryAfterSeconds: Int64 = RetryAfter.maximumSeconds) {
        self.baseMilliseconds = baseMilliseconds
        self.maxBackoffMilliseconds = maxBackoffMilliseconds
        self.maxRetryAfterSeconds = maxRetryAfterSeconds
    }

    /// When attempt number `attempts + 1` may start. "Equal jitter": half the backoff fixed, half random, so many
    /// pushes that failed together (a provider outage) do not all come back in the same millisecond, and none comes
    /// back sooner than half its backoff. A provider's Retry-After is a floor, cut to ``maxRetryAfterSeconds``.
    public func nextAttempt(afterAttempts attempts: Int, retryAfterSeconds: Int64?, now: Int64, random: Double) -> Int64 {
        let cap = max(maxBackoffMilliseconds, 0)
        let exponent = min(max(attempts, 1) - 1, 30)
        let (doubled, overflow) = max(baseMilliseconds, 0).multipliedReportingOverflow(by: Int64(1) << Int64(exponent))
        let backoff = overflow ? cap : min(doubled, cap)
        let fraction = random.isFinite ? min(max(random, 0), 1) : 0
        let jittered = backoff / 2 + Int64(Double(backoff / 2) * fraction)
        let retryAfter = min(max(retryAfterSeconds ?? 0, 0), max(min(maxRetryAfterSeconds, Int64.max / 1_000), 0))
        let (at, late) = now.addingReportingOverflow(max(jittered, retryAfter * 1_000))
        return late ? Int64.max : at
    }
}
