import HeraldNet
import Logging

/// Settings for the whole `herald-server` process: where to listen, which endpoints to serve, the storage and
/// auth settings the sync service reads, and the engine's timers and limits.
///
/// Every field has a production default. The CLI fills it from flags, then from `HERALD_*` environment variables
/// (see ``init(environment:)``), and tests shorten the timers.
///
/// ```swift
/// var options = HeraldServerOptions()
/// options.port = 0            // let the kernel choose; read it back from HeraldHTTPServer.boundPort
/// options.echo = true         // serve GET /echo
/// ```
public struct HeraldServerOptions: Sendable {
    /// Literal address to bind ("127.0.0.1", "0.0.0.0", "::").
    public var host = "127.0.0.1"
    /// Port to bind; 0 asks the kernel for a free one.
    public var port = 8080
    /// Event-loop threads; defaults to the number of cores.
    public var threads = LoopGroup.defaultThreadCount
    /// Serve `GET /echo`, a WebSocket endpoint that echoes every message back (for tests and benchmarks).
    public var echo = false
    /// Serve the benchmark broadcast endpoint on every otherwise unrouted path: a text message goes to every other
    /// client on such a path; a text message starting with `hello` is answered with `ready` instead.
    public var broadcast = false
    /// The SQLite database file of the sync service.
    public var dbPath = "herald.db"
    /// A shared PostgreSQL store (`postgres://user@host:port/db`) instead of ``dbPath``: several nodes on one
    /// database see the same streams (issue 9). nil: the SQLite file.
    public var store: String? = nil
    /// The token signing secret; nil lets the sync service use the one stored in the database.
    public var secret: String? = nil
    /// P4's push grace period in seconds.
    public var pushGraceSeconds: Double = 2
    /// A connection that has not sent a complete HTTP request head within this many milliseconds is closed.
    public var handshakeTimeoutMs = 10_000
    /// A WebSocket session that has sent nothing for this long is pinged (§5.5.2); 0 disables pings.
    public var pingIntervalMs = 30_000
    /// A WebSocket session that has sent nothing (not even a pong) for this long is closed with 1001; 0 disables.
    public var idleTimeoutMs = 90_000
    /// Granularity of the timer sweep: every deadline above fires up to this late.
    public var tickMs = 100
    /// The largest WebSocket frame payload accepted; a larger declared length fails with 1009 before buffering.
    public var maxFrameSize = 1 << 20
    /// The largest reassembled WebSocket message accepted; beyond it the connection fails with 1009.
    public var maxMessageSize = 1 << 20
    /// Accept permessage-deflate (RFC 7692) from clients that offer it; `--no-compression` turns it off.
    public var compression = true
    /// Connections beyond this many at once are answered 503 and closed.
    public var maxConnections = 100_000
    /// The minimum level logged.
    public var logLevel: Logger.Level = .info
    /// PEM certificate chain for `wss://` (with ``tlsKeyFile``); re-read on SIGHUP. nil: no TLS.
    public var tlsCertificateFile: String? = nil
    /// PEM private key matching ``tlsCertificateFile``.
    public var tlsKeyFile: String? = nil
    /// With a certificate: serve TLS on this port and plain WebSocket on ``port``. nil: ``port`` itself is TLS.
    public var tlsPort: Int? = nil

    /// The defaults.
    public init() {}
}
