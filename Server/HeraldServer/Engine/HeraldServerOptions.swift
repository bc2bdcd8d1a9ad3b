import HeraldNet
import HeraldProtocol
import HeraldSync
import Logging

/// Settings for the whole `herald-server` process: where to listen, which endpoints to serve, the storage and
/// auth settings the sync service reads, and the engine's timers and limits.
///
/// Every field has a production default. The CLI fills it from `HERALD_*` environment variables, then from flags
/// (both as ``settings`` declares them), and tests shorten the timers.
///
/// ```swift
/// var options = HeraldServerOptions()
/// options.port = 0            // let the kernel choose; read it back from HeraldHTTPServer.boundPort
/// options.benchEndpoints = true   // serve GET /echo and the broadcast endpoint
/// ```
public struct HeraldServerOptions: Sendable {
    /// Literal address to bind ("127.0.0.1", "0.0.0.0", "::").
    public var host = "127.0.0.1"
    /// Port to bind; 0 asks the kernel for a free one.
    public var port = 8080
    /// Event-loop threads; defaults to the number of cores.
    public var threads = LoopGroup.defaultThreadCount
    /// Serve the endpoints that exist only for benchmarks and engine tests, never for the product: `GET /echo` (a
    /// WebSocket that echoes every message back) and the broadcast endpoint on every otherwise unrouted path (a text
    /// message goes to every other client on such a path; one starting with `hello` is answered with `ready`). One
    /// switch, off by default, so a product server never exposes them by accident.
    public var benchEndpoints = false
    /// The SQLite database file of the sync service.
    public var dbPath = "herald.db"
    /// A shared PostgreSQL store (`postgres://user@host:port/db`) instead of ``dbPath``: several nodes on one
    /// database see the same streams (R1-R3 across nodes). nil: the SQLite file.
    public var store: String? = nil
    /// The backend HTTP API's (`/api/v1`) body limit and per-key rate.
    public var api = APIOptions()
    /// The token signing secret; nil lets the sync service use the one stored in the database.
    public var secret: String? = nil
    /// A file holding the token signing secret (see ``SecretFile``), read by ``settleSecret(flag:fileFlag:)`` into
    /// ``secret``. The way to give a secret: `--secret` shows in `ps`.
    public var secretFile: String? = nil
    /// P4's push grace period in seconds.
    public var pushGraceSeconds: Double = 2
    /// M1: seconds after sending in which the sender can edit a text message.
    public var editWindowSeconds = 900
    /// M2: seconds after sending in which the sender can unsend a message.
    public var unsendWindowSeconds = 120
    /// Bytes of message content (text and image URLs, sent or edited in) each user may store per UTC day; past it
    /// sends and edits are refused with `quota_exceeded` (HTTP 429). 0 = unlimited. See ``StorageQuota``.
    public var userDailyQuotaBytes = Int(StorageQuota.defaultBytesPerDay)
    /// Push to devices without a connection (APNs, FCM, Web Push, webhooks).
    public var push = PushOptions()
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
    /// Open connections per client IP; more are answered 429 before any upgrade. 0 = unlimited. The default is what
    /// one person's devices need; a NAT, a proxy or a load generator raises it (or connects from several addresses).
    public var maxConnectionsPerIP = 64
    /// Open /sync connections per user, all their devices together; more are answered 429 before the upgrade.
    /// 0 = unlimited.
    public var maxConnectionsPerUser = 64
    /// Bytes that one user's unfinished WebSocket messages and unanswered /sync requests may hold in the server at
    /// once; past it a connection that goes on growing an unfinished message is closed with 1008 and its pipelined
    /// requests wait (TCP slows the client). 0 = unlimited. Never less than ``effectiveInputBudget(_:)`` allows: one
    /// largest message must always fit.
    public var maxBufferedInputPerUser = 16 << 20
    /// The same budget for all connections of the server together. 0 = unlimited.
    public var maxBufferedInput = 256 << 20

    /// A buffered-input budget as enforced: 0 stays unlimited; any other is at least twice ``maxMessageSize`` (a
    /// message's buffer grows by doubling), so a message the size limits allow is never refused on a quiet server.
    public func effectiveInputBudget(_ budget: Int) -> Int {
        budget <= 0 ? 0 : max(budget, maxMessageSize &* 2)
    }
    /// Microseconds of the sync thread that one user's requests may take in one batch; the user's later requests wait
    /// for the next batch, so one user's flood of expensive reads cannot hold back everyone else's answers. 0 = no
    /// limit (first come, first served).
    public var syncUserBatchMicroseconds = 2_000
    /// New connections per second per client IP (burst: five seconds' worth); more are answered 429. 0 = unlimited.
    public var handshakeRatePerIP: Double = 2_000
    /// `send` requests per second per user on /sync (burst: twice that); more are answered `rate_limited` and the
    /// connection stays open. 0 = unlimited. Must stay above the 50/s the spec promises.
    public var syncSendRate: Double = 100
    /// `dm` and `group` requests per second per user (burst: 15 s worth); 0 = unlimited. Each stores a conversation
    /// in every member's list and snapshot.
    public var syncCreateRate: Double = 2
    /// `follow` and `react` requests per second per user (burst: 120 s worth); 0 = unlimited. Each lands in someone
    /// else's bell, which keeps only its newest 100 entries: the burst still lets one user fill a bell past 100 (B4's
    /// own scenario), the rate keeps a flood to one a second after it.
    public var syncSocialRate: Double = 1
    /// `ack`, `bell.read` and `bell.readAll` requests per second per user (burst: 10 s worth); 0 = unlimited.
    public var syncReadRate: Double = 100
    /// `scene` reports per second per user (burst: 10 s worth); 0 = unlimited.
    public var syncSceneRate: Double = 50

    /// The per-user budgets of /sync's writing requests, from the rates above.
    public var syncRequestRates: [RequestRateClass: RequestRate] {
        [
            .send: RequestRate(perSecond: syncSendRate, burst: max(1, 2 * syncSendRate)),
            .create: .perSecond(syncCreateRate, burstSeconds: 15),
            .social: .perSecond(syncSocialRate, burstSeconds: 120),
            .read: .perSecond(syncReadRate, burstSeconds: 10),
            .scene: .perSecond(syncSceneRate, burstSeconds: 10),
        ]
    }
    /// Requests one /sync connection may have sent and not yet seen answered; past it the server stops reading that
    /// connection (TCP slows the client down) until answers catch up, so pipelined requests cost bounded memory.
    public var maxUnansweredRequests = 8
    /// Longest message text in UTF-8 bytes a /sync `send` may carry (ProtocolLimits.maxTextBytes); longer is `too_large`.
    public var maxTextBytes = ProtocolLimits.default.maxTextBytes
    /// Bytes one connection may have queued for sending; a receiver that falls further behind is closed (slow
    /// consumer) and resumes from its last seq when it reconnects. nil: 4 MiB, or two maximal messages if larger.
    /// Never below one maximal message.
    public var maxQueuedBytes: Int? = nil
    /// SO_SNDBUF of accepted sockets in bytes; nil leaves the kernel's autotuning. Caps the kernel memory one stalled
    /// reader can hold beyond ``maxQueuedBytes``.
    public var socketSendBuffer: Int? = nil
    /// Serve `GET /metrics` (Prometheus text format).
    public var metrics = true
    /// A file holding the bearer token `GET /metrics` then requires (read like ``secretFile``, see ``SecretFile``) into
    /// ``metricsToken`` by ``settleMetricsToken(fileFlag:)``. nil: /metrics needs no authentication.
    public var metricsTokenFile: String? = nil
    /// The token `GET /metrics` requires as `Authorization: Bearer <token>` (401 otherwise); nil: none required.
    public var metricsToken: String? = nil
    /// Warnings about limits firing (failed authentication, refused connections, slow consumers, descriptor
    /// exhaustion, store write failures) written per second per kind at most (also the burst); the rest are counted.
    public var warningsPerSecond = 10
    /// Suppressed warnings of a kind are reported in one line this many milliseconds after the first of them.
    public var warningSummaryIntervalMs = 10_000
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
