/// What to do with a queued push after its provider answered (or did not).
public enum DeliveryOutcome: Sendable, Equatable {
    /// The provider took it: the row goes.
    case accepted
    /// Try again later: after `afterSeconds` when the provider said so (Retry-After), else after the backoff.
    case retry(afterSeconds: Int64?, reason: String)
    /// The credentials the request carried were refused as expired or invalid: make new ones, then retry at once.
    case refreshCredentials(reason: String)
    /// The provider says the device's address is gone for good (uninstalled, unsubscribed): forget the target.
    case targetGone(reason: String)
    /// Refused for good (a malformed request, a payload too large): retrying cannot help, the push is dropped.
    case rejected(reason: String)
}

/// Exponential backoff with jitter for retries. A push is retried until it expires (its TTL): an outage of any
/// length short of that loses nothing, and the backoff's cap bounds how long a push waits after the provider is back.
public struct PushRetryPolicy: Sendable {
    /// The first retry's delay; each further one doubles it.
    public var baseMilliseconds: Int64 = 1_000
    /// The longest wait between two attempts.
    public var maxBackoffMilliseconds: Int64 = 60_000

    public init(baseMilliseconds: Int64 = 1_000, maxBackoffMilliseconds: Int64 = 60_000) {
        self.baseMilliseconds = baseMilliseconds
        self.maxBackoffMilliseconds = maxBackoffMilliseconds
    }

    /// When attempt number `attempts + 1` may start. "Equal jitter": half the backoff fixed, half random, so many
    /// pushes that failed together (a provider outage) do not all come back in the same millisecond, and none comes
    /// back sooner than half its backoff. A provider's Retry-After is a floor, never shortened.
    public func nextAttempt(afterAttempts attempts: Int, retryAfterSeconds: Int64?, now: Int64, random: Double) -> Int64 {
        let exponent = min(max(attempts - 1, 0), 30)
        let backoff = min(baseMilliseconds << Int64(exponent), maxBackoffMilliseconds)
        let jittered = backoff / 2 + Int64(Double(backoff / 2) * min(max(random, 0), 1))
        let floor = (retryAfterSeconds ?? 0) * 1_000
        return now + max(jittered, floor)
    }
}
