import HeraldDeflate
import HeraldNet
import HeraldWebSocket
import Logging
import Synchronization

/// What every connection handler of one server shares: the frozen route table, limits, timers, the logger and
/// the connection count. Immutable apart from the atomic counter, so loop threads read it without locks.
final class EngineContext: Sendable {
    let routes: RouteTable
    let limits: WebSocketLimits
    /// Every session's ping interval, idle timeout and close timeout.
    let keepAlive: WebSocketKeepAlive
    let handshakeTimeoutMs: Int
    let maxConnections: Int
    /// What permessage-deflate offers are accepted; nil when compression is off.
    let deflate: PerMessageDeflateServerConfiguration?
    let logger: Logger
    let openConnections = Atomic<Int>(0)
    /// Counters for `GET /metrics`.
    let metrics: ServerMetrics
    /// Per-IP connection and handshake-rate limits.
    let admission: ConnectionAdmission
    /// Rate-limited warnings when a limit fires.
    let warnings: LimitWarnings
    /// What every connection's unfinished input may hold together.
    let inputBudget: InputBudget
    /// Each user's open sessions and input budget; a session hands its share back here when it closes.
    let userShares: UserShares

    init(routes: RouteTable, options: HeraldServerOptions, logger: Logger, metrics: ServerMetrics, warnings: LimitWarnings,
         inputBudget: InputBudget, userShares: UserShares) {
        self.inputBudget = inputBudget
        self.userShares = userShares
        self.metrics = metrics
        self.warnings = warnings
        self.admission = ConnectionAdmission(maxPerAddress: options.maxConnectionsPerIP, handshakeRate: options.handshakeRatePerIP)
        self.routes = routes
        self.limits = WebSocketLimits(maxFrameSize: options.maxFrameSize, maxMessageSize: options.maxMessageSize)
        // A peer gets as long to answer our close as the shutdown grace allows, but never longer than 2 s.
        self.keepAlive = WebSocketKeepAlive(pingIntervalMs: Int64(options.pingIntervalMs), idleTimeoutMs: Int64(options.idleTimeoutMs), closeTimeoutMs: 2000)
        self.handshakeTimeoutMs = options.handshakeTimeoutMs
        self.maxConnections = options.maxConnections
        self.deflate = options.compression ? PerMessageDeflateServerConfiguration() : nil
        self.logger = logger
    }

    /// Closes the books a connection opened when it was accepted (the open-connection count, its per-IP slot when it
    /// was admitted), warning when it was closed as a slow consumer; `route` names its WebSocket path, "-" before one.
    func connectionClosed(_ connection: Connection, admitted: Bool, route: String) {
        if connection.closedAsSlowConsumer {
            warnings.warn(.slowConsumer, "closed slow consumer: its outbound queue reached the limit",
                          metadata: ["peer": "\(connection.remoteAddress)", "route": "\(route)", "limit": "\(connection.maxQueuedBytes)"])
        }
        openConnections.wrappingSubtract(1, ordering: .relaxed)
        if admitted { admission.release(connection.remoteAddress) }
        connection.userData = nil
    }
}
