import HeraldProtocol
import HeraldStoreProtocol

/// What the sync thread did, as plain running totals: ``SyncCore`` (one thread) bumps them without any
/// synchronisation and the sync thread publishes them to ``ServerMetrics`` once per batch.
public struct SyncCounters: Sendable {
    /// Messages inserted (retries answered `duplicate` are not counted).
    public var messagesStored = 0
    /// `sync` requests answered in resume mode.
    public var resumes = 0
    /// Stream events replayed to resuming devices.
    public var replayedEvents = 0
    /// Several nodes: live stream events held for a device until another node's earlier events reached it.
    public var heldStreamEvents = 0
    /// Holds that waited too long and read the gap from the store after all.
    public var heldFramesTimedOut = 0
    /// Devices brought up to date from the store because their next live event would have skipped some.
    public var streamGapReads = 0
    /// `send` requests refused with `rate_limited`.
    public var rateLimited = 0
    /// Failed responses by error code (bad_json, unavailable, rate_limited, ...).
    public var errors: [ErrorCode: Int] = [:]

    /// Requests and backend calls that failed because the store could not do its part (disk full, read-only, I/O,
    /// busy, corrupt): what an operator must hear about, unlike refusals of bad input.
    public var storeFailures = 0
    /// The latest of ``storeFailures``, with its cause.
    public var lastStoreFailure: StoreError?

    public init() {}

    mutating func recordError(_ code: ErrorCode) { errors[code, default: 0] += 1 }

    /// Counts `error` in ``storeFailures`` when it is the store failing; refusals and logic errors (not found,
    /// constraint) are not.
    mutating func recordFailure(_ error: any Error) {
        guard let storeError = error as? StoreError else { return }
        switch storeError.kind {
        case .readOnly, .full, .io, .busy, .corrupt, .other:
            storeFailures += 1
            lastStoreFailure = storeError
        case .notFound, .constraint:
            return
        }
    }
}
