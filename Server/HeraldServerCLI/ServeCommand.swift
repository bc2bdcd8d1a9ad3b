import ArgumentParser
import Foundation
import HeraldServer
import Logging

/// `herald-server serve`: parses flags (falling back to HERALD_* variables, then defaults) and runs the server.
struct ServeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run the server until SIGINT/SIGTERM (the default command).",
        discussion: "Every option may also be given as an environment variable HERALD_<NAME> (e.g. HERALD_PORT, "
            + "HERALD_HANDSHAKE_TIMEOUT); a flag wins over the variable."
    )

    @Option(help: "Address to bind. [env: HERALD_HOST] (default: 127.0.0.1)") var host: String?
    @Option(help: "Port to bind; 0 picks a free one. [env: HERALD_PORT] (default: 8080)") var port: Int?
    @Option(help: "Event-loop threads. [env: HERALD_THREADS] (default: cores)") var threads: Int?
    @Flag(inversion: .prefixedNo, help: "Serve GET /echo, a WebSocket echo endpoint. [env: HERALD_ECHO]") var echo: Bool?
    @Flag(inversion: .prefixedNo, help: "Serve the benchmark broadcast endpoint on unrouted paths. [env: HERALD_BROADCAST]")
    var broadcast: Bool?
    @Flag(inversion: .prefixedNo, help: "Accept permessage-deflate (RFC 7692) from clients that offer it. [env: HERALD_COMPRESSION] (default: on)")
    var compression: Bool?
    @Option(help: "SQLite database file. [env: HERALD_DB] (default: herald.db)") var db: String?
    @Option(help: "Shared PostgreSQL store (postgres://user@host:port/db) instead of --db, for several nodes. [env: HERALD_STORE]")
    var store: String?
    @Option(help: "Requests per second each /api/v1 key may make (burst: twice that); 0 = unlimited. [env: HERALD_API_RATE_LIMIT] (default: 100)")
    var apiRateLimit: Double?
    @Option(help: "Largest /api/v1 request body in bytes. [env: HERALD_API_MAX_BODY] (default: 65536)") var apiMaxBody: Int?
    @Option(help: "File holding the token signing secret (mode 0600, one trailing newline ignored); default: the one stored in the database. [env: HERALD_SECRET_FILE]")
    var secretFile: String?
    @Option(help: "Token signing secret as an argument: visible in ps, prefer --secret-file. [env: HERALD_SECRET]") var secret: String?
    @Option(help: "Push grace period in seconds (P4). [env: HERALD_PUSH_GRACE] (default: 2)") var pushGrace: Double?
    @Option(help: "Close connections whose HTTP request head is incomplete after this many ms. [env: HERALD_HANDSHAKE_TIMEOUT] (default: 10000)")
    var handshakeTimeout: Int?
    @Option(help: "Ping sessions quiet for this many ms; 0 disables. [env: HERALD_PING_INTERVAL] (default: 30000)") var pingInterval: Int?
    @Option(help: "Close sessions silent for this many ms with 1001; 0 disables. [env: HERALD_IDLE_TIMEOUT] (default: 90000)")
    var idleTimeout: Int?
    @Option(help: "Timer sweep granularity in ms. [env: HERALD_TICK] (default: 100)") var tick: Int?
    @Option(help: "Largest WebSocket frame payload in bytes. [env: HERALD_MAX_FRAME_SIZE] (default: 1048576)") var maxFrameSize: Int?
    @Option(help: "Largest WebSocket message in bytes. [env: HERALD_MAX_MESSAGE_SIZE] (default: 1048576)") var maxMessageSize: Int?
    @Option(help: "Most simultaneous connections; more get 503 before any upgrade. [env: HERALD_MAX_CONNECTIONS] (default: 100000)")
    var maxConnections: Int?
    @Option(help: "Most simultaneous connections per client IP; more get 429; 0 = unlimited. [env: HERALD_MAX_CONNECTIONS_PER_IP] (default: 16384)")
    var maxConnectionsPerIp: Int?
    @Option(help: "New connections per second per client IP (burst: 5 s worth); more get 429; 0 = unlimited. [env: HERALD_HANDSHAKE_RATE_PER_IP] (default: 2000)")
    var handshakeRatePerIp: Double?
    @Option(help: "/sync sends per second per user (burst: twice that); more are answered rate_limited; 0 = unlimited. [env: HERALD_SYNC_SEND_RATE] (default: 100)")
    var syncSendRate: Double?
    @Option(help: "/sync dm and group requests per second per user (burst: 15 s worth); 0 = unlimited. [env: HERALD_SYNC_CREATE_RATE] (default: 2)")
    var syncCreateRate: Double?
    @Option(help: "/sync follow and react requests per second per user (burst: 120 s worth); 0 = unlimited. [env: HERALD_SYNC_SOCIAL_RATE] (default: 1)")
    var syncSocialRate: Double?
    @Option(help: "/sync ack, bell.read and bell.readAll requests per second per user (burst: 10 s worth); 0 = unlimited. [env: HERALD_SYNC_READ_RATE] (default: 100)")
    var syncReadRate: Double?
    @Option(help: "/sync scene reports per second per user (burst: 10 s worth); 0 = unlimited. [env: HERALD_SYNC_SCENE_RATE] (default: 50)")
    var syncSceneRate: Double?
    @Option(help: "Longest /sync message text in UTF-8 bytes; longer is too_large. [env: HERALD_MAX_TEXT_BYTES] (default: 8192)")
    var maxTextBytes: Int?
    @Option(help: "Bytes queued per connection before a receiver that stopped reading is closed (it resumes on reconnect). [env: HERALD_MAX_QUEUED_BYTES] (default: 4194304)")
    var maxQueuedBytes: Int?
    @Option(help: "SO_SNDBUF of accepted sockets in bytes (caps kernel memory per stalled reader); default: kernel autotuning. [env: HERALD_SOCKET_SEND_BUFFER]")
    var socketSendBuffer: Int?
    @Flag(inversion: .prefixedNo, help: "Serve GET /metrics (Prometheus text format). [env: HERALD_METRICS] (default: on)") var metrics: Bool?
    @Option(help: "File holding the token GET /metrics then requires as Authorization: Bearer <token> (mode 0600, one trailing newline ignored); default: no authentication. [env: HERALD_METRICS_TOKEN_FILE]")
    var metricsTokenFile: String?
    @Option(help: "Warnings about limits firing (failed logins, refused connections, slow consumers, descriptor exhaustion, store write failures) logged per second per kind; the rest are counted and summarised. [env: HERALD_WARNINGS_PER_SECOND] (default: 10)")
    var warningsPerSecond: Int?
    @Option(help: "Report suppressed warnings of a kind this many ms after the first of them. [env: HERALD_WARNING_SUMMARY_INTERVAL] (default: 10000)")
    var warningSummaryInterval: Int?
    @Option(help: "trace, debug, info, notice, warning, error or critical. [env: HERALD_LOG_LEVEL] (default: info)") var logLevel: String?
    @Option(help: "PEM certificate chain: serve wss:// (TLS 1.2+); re-read on SIGHUP. [env: HERALD_TLS_CERT]") var tlsCert: String?
    @Option(help: "PEM private key for --tls-cert. [env: HERALD_TLS_KEY]") var tlsKey: String?
    @Option(help: "Serve TLS on this port and plain ws:// on --port; without it --port is TLS. [env: HERALD_TLS_PORT]") var tlsPort: Int?

    /// Defaults, then environment, then flags.
    func makeOptions(environment: [String: String]) throws -> HeraldServerOptions {
        var options: HeraldServerOptions
        do {
            options = try HeraldServerOptions(environment: environment)
        } catch {
            throw ValidationError("\(error)")
        }
        if let host { options.host = host }
        if let port { options.port = port }
        if let threads { options.threads = threads }
        if let echo { options.echo = echo }
        if let broadcast { options.broadcast = broadcast }
        if let compression { options.compression = compression }
        if let db { options.dbPath = db }
        if let storeURL = store ?? environment["HERALD_STORE"].flatMap({ $0.isEmpty ? nil : $0 }) {
            guard storeURL.hasPrefix("postgres://") || storeURL.hasPrefix("postgresql://") else {
                throw ValidationError("--store must be a postgres:// or postgresql:// URL")
            }
            options.store = storeURL
        }
        do {
            try options.settleSecret(flag: secret, fileFlag: secretFile)
        } catch let error as OptionsError {
            throw ValidationError("\(error)")
        }
        if let pushGrace { options.pushGraceSeconds = pushGrace }
        if let handshakeTimeout { options.handshakeTimeoutMs = handshakeTimeout }
        if let pingInterval { options.pingIntervalMs = pingInterval }
        if let idleTimeout { options.idleTimeoutMs = idleTimeout }
        if let tick { options.tickMs = tick }
        if let maxFrameSize { options.maxFrameSize = maxFrameSize }
        if let maxMessageSize { options.maxMessageSize = maxMessageSize }
        if let maxConnections { options.maxConnections = maxConnections }
        if let maxConnectionsPerIp { options.maxConnectionsPerIP = maxConnectionsPerIp }
        if let handshakeRatePerIp { options.handshakeRatePerIP = handshakeRatePerIp }
        if let syncSendRate { options.syncSendRate = syncSendRate }
        if let syncCreateRate { options.syncCreateRate = syncCreateRate }
        if let syncSocialRate { options.syncSocialRate = syncSocialRate }
        if let syncReadRate { options.syncReadRate = syncReadRate }
        if let syncSceneRate { options.syncSceneRate = syncSceneRate }
        if let maxTextBytes { options.maxTextBytes = maxTextBytes }
        if let metrics { options.metrics = metrics }
        if let warningsPerSecond { options.warningsPerSecond = warningsPerSecond }
        if let warningSummaryInterval { options.warningSummaryIntervalMs = warningSummaryInterval }
        do {
            try options.settleMetricsToken(fileFlag: metricsTokenFile)
        } catch {
            throw ValidationError("metrics token: \(error)")
        }
        if let maxQueuedBytes { options.maxQueuedBytes = maxQueuedBytes }
        if let socketSendBuffer { options.socketSendBuffer = socketSendBuffer }
        if let tlsCert { options.tlsCertificateFile = tlsCert }
        if let tlsKey { options.tlsKeyFile = tlsKey }
        if let tlsPort { options.tlsPort = tlsPort }
        if let logLevel {
            guard let level = Logger.Level(rawValue: logLevel.lowercased()) else { throw ValidationError("unknown log level \(logLevel)") }
            options.logLevel = level
        }
        do {
            try options.validate()
        } catch {
            throw ValidationError("\(error)")
        }
        return options
    }

    func run() throws {
        let options = try makeOptions(environment: ProcessInfo.processInfo.environment)
        let level = options.logLevel
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
        let logger = Logger(label: "herald-server")
        if secret != nil {
            logger.warning("--secret is visible to every local user (ps, /proc/<pid>/cmdline); use --secret-file or HERALD_SECRET_FILE")
        }
        // A file-size limit (RLIMIT_FSIZE) or quota must turn into EFBIG on the write, which the store reports as a
        // failed commit (senders get `unavailable`), not a SIGXFSZ that kills every connection.
        signal(SIGXFSZ, SIG_IGN)
        HeraldHTTPServer.raiseOpenFileLimit()
        let server = HeraldHTTPServer(options: options, logger: logger)
        let sync = try startSyncService(options: options, api: try makeAPIOptions(environment: ProcessInfo.processInfo.environment),
                                        server: server, logger: logger)
        try server.start()
        // Written unbuffered: tests and scripts wait for this exact line to learn the port (the TLS line comes first).
        let tlsLine = server.tlsBoundPort.map { "herald-server tls listening on \(options.host):\($0)\n" } ?? ""
        FileHandle.standardOutput.write(Data("\(tlsLine)herald-server listening on \(options.host):\(server.boundPort)\n".utf8))
        server.runUntilShutdown()
        sync.shutdown()
    }
}
