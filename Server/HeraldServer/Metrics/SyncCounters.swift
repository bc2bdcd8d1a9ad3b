import HeraldProtocol

/// What the sync thread did, as plain running totals: ``SyncCore`` (one thread) bumps them without any
/// synchronisation and the sync thread publishes them to ``ServerMetrics`` once per batch.
public struct SyncCounters: Sendable {
    /// Messages inserted (retries answered `duplicate` are not counted).
    public var messagesStored = 0
    /// `sync` requests answered in resume mode.
    public var resumes = 0
    /// Stream events replayed to resuming devices.
    public var replayedEvents = 0
    /// `send` requests refused with `rate_limited`.
    public var rateLimited = 0
    /// Failed responses by error code (bad_json, unavailable, rate_limited, ...).
    public var errors: [ErrorCode: Int] = [:]

    public init() {}

    mutating func recordError(_ code: ErrorCode) { errors[code, default: 0] += 1 }
}
