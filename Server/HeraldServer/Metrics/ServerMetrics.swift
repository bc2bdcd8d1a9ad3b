import HeraldNet
import HeraldProtocol
import HeraldSync
import Synchronization

/// Every counter `GET /metrics` reports. Counters are atomics bumped with relaxed ordering (no lock anywhere on
/// the frame path); the per-message ones live in one ``LoopMetrics`` per event loop, so loops never write the
/// same cache line. Socket bytes come from HeraldNet's own ``LoopCounters``.
public final class ServerMetrics: Sendable {
    /// Counters of one event loop, written only by that loop's thread.
    public final class LoopMetrics: Sendable {
        /// Complete WebSocket messages received (text and binary).
        public let messagesIn = Counter()
        /// WebSocket data messages a session encoded and queued itself (echoes, broadcast replies); /sync deliveries
        /// are counted once by the sync thread in ``ServerMetrics/fanoutDeliveries``.
        public let framesOut = Counter()
        /// Control frames received (ping, pong, close).
        public let controlFramesIn = Counter()
    }

    /// Why a connection was refused before any upgrade.
    public enum Refusal: String, CaseIterable, Sendable {
        /// `--max-connections` reached: 503.
        case maxConnections = "max_connections"
        /// `--max-connections-per-ip` reached: 429.
        case perAddressConnections = "per_ip_connections"
        /// `--handshake-rate-per-ip` exceeded: 429.
        case handshakeRate = "handshake_rate"
        /// `--max-connections-per-user` reached: 429.
        case perUserConnections = "per_user_connections"
    }

    /// WebSocket close codes counted when the server fails or ends a session.
    public static let countedCloseCodes: [UInt16] = [1001, 1002, 1003, 1007, 1008, 1009, 1011]

    let loops: [LoopMetrics]
    /// Sessions upgraded and still open.
    let webSocketSessions = Counter()
    let upgrades = Counter()
    /// HTTP answers that refused a request (400, 404, 426, 431, ...), counted per status class of interest.
    let badRequests = Counter()
    let handshakeTimeouts = Counter()
    let refusals: [Counter]
    /// Sessions failed or closed by the server, by close code (index in ``countedCloseCodes``), plus "other" last.
    let closesByCode: [Counter]

    // Published by the sync thread after each batch (it owns the plain ``SyncCounters``).
    let messagesStored = Counter()
    let resumes = Counter()
    let replayedEvents = Counter()
    let streamGapReads = Counter()
    let heldStreamEvents = Counter()
    let heldFramesTimedOut = Counter()
    let syncErrors: [Counter]
    /// Frames handed to sessions by the sync thread (one per device per delivery).
    let fanoutDeliveries = Counter()
    /// Commit of a sync batch → its frames queued on the loop (measured per loop, per batch).
    public let deliveryLatency = LatencyHistogram()
    /// How long the sync thread took over one batch of inputs: the core's work and the store's transaction, commit
    /// included. Every request of a batch waits for all of it, so its tail is the tail of answer and delivery latency.
    public let syncBatchDuration = LatencyHistogram()
    /// Metric families of parts the server library does not own (the push gateway the composition root starts), as
    /// Prometheus text appended to `GET /metrics`.
    public let appended = Mutex<[@Sendable () -> String]>([])

    /// - Parameter loopCount: the number of event loops (``LoopMetrics`` are indexed by `EventLoop.index`).
    public init(loopCount: Int) {
        loops = (0..<max(1, loopCount)).map { _ in LoopMetrics() }
        refusals = Refusal.allCases.map { _ in Counter() }
        closesByCode = (0...Self.countedCloseCodes.count).map { _ in Counter() }
        syncErrors = ErrorCode.allCases.map { _ in Counter() }
    }

    /// The counters of loop `index` (clamped, so a bad index never traps).
    public func loop(_ index: Int) -> LoopMetrics { loops[min(max(index, 0), loops.count - 1)] }

    func countRefusal(_ refusal: Refusal) {
        if let index = Refusal.allCases.firstIndex(of: refusal) { refusals[index].add(1) }
    }

    func countClose(code: UInt16) {
        let index = Self.countedCloseCodes.firstIndex(of: code) ?? Self.countedCloseCodes.count
        closesByCode[index].add(1)
    }

    /// The sync thread's totals, stored as they are (they only grow).
    func publish(_ counters: SyncCounters) {
        messagesStored.store(counters.messagesStored)
        resumes.store(counters.resumes)
        replayedEvents.store(counters.replayedEvents)
        streamGapReads.store(counters.streamGapReads)
        heldStreamEvents.store(counters.heldStreamEvents)
        heldFramesTimedOut.store(counters.heldFramesTimedOut)
        for (index, code) in ErrorCode.allCases.enumerated() {
            syncErrors[index].store(counters.errors[code] ?? 0)
        }
    }
}
