import Glibc
import HeraldBytes
import HeraldNet
import HeraldTLS
import HeraldWebSocket
import Logging
import Synchronization

/// The HTTP/WebSocket front of `herald-server`, on HeraldNet's event loops.
///
/// Routes: `GET /healthz` answers 200 "ok"; `GET /echo` echoes every WebSocket message (when `options.benchEndpoints`);
/// WebSocket routes registered by other services (the sync service registers `/sync`); with `options.benchEndpoints`,
/// every other path is the benchmark broadcast endpoint; otherwise anything else is 404. A bad upgrade request is
/// answered 400 (426 with `Sec-WebSocket-Version: 13` for a wrong version) and never upgraded.
///
/// ```swift
/// let server = HeraldHTTPServer(options: options, logger: logger)
/// server.addWebSocketRoute("/sync") { head in .accept(subprotocol: nil) { session in SyncDelegate(session) } }
/// try server.start()
/// print("herald-server listening on 127.0.0.1:\(server.boundPort)")
/// server.runUntilShutdown()                         // returns after SIGINT/SIGTERM and a graceful close
/// ```
public final class HeraldHTTPServer: Sendable {
    /// The options the server was created with.
    public let options: HeraldServerOptions
    private let logger: Logger
    private let broadcastHub: BroadcastHub
    /// The counters `GET /metrics` reports; the sync service adds its own to them.
    public let metrics: ServerMetrics
    /// Rate-limited warnings for limits that fire (failed authentication, refusals, slow consumers, descriptor
    /// exhaustion, store write failures); the sync service and the API warn through it too.
    public let warnings: LimitWarnings
    /// Each user's open /sync sessions and input budget: the sync route admits its upgrades here.
    let userShares: UserShares
    /// The input budget of all connections together (see ``InputBudget``).
    let inputBudget: InputBudget

    private struct State {
        var routes = RouteTable()
        var tcpServer: TCPServer?
        /// The second listener, for `--tls-port`, on the same loops.
        var tlsServer: TCPServer?
        var tls: ReloadableTLSContext?
        var signals: ShutdownSignals?
        var shutdownRequested = false
    }

    private let state = Mutex(State())

    /// Creates a server; nothing is bound until ``start()``.
    ///
    /// - Parameters:
    ///   - options: address, endpoints, timers and limits.
    ///   - logger: the server logs connection lifecycle at debug level and never per-frame above trace.
    public init(options: HeraldServerOptions, logger: Logger) {
        self.options = options
        self.logger = logger
        self.broadcastHub = BroadcastHub(loopCount: max(1, options.threads))
        self.metrics = ServerMetrics(loopCount: max(1, options.threads))
        self.warnings = LimitWarnings(
            logger: logger, limit: LogRateLimit(linesPerSecond: options.warningsPerSecond, summaryIntervalMilliseconds: options.warningSummaryIntervalMs))
        self.userShares = UserShares(maxConnections: options.maxConnectionsPerUser,
                                     inputLimit: options.effectiveInputBudget(options.maxBufferedInputPerUser))
        self.inputBudget = InputBudget(limit: options.effectiveInputBudget(options.maxBufferedInput))
        state.withLock { state in
            if options.benchEndpoints {
                // One delegate for every echo session: it keeps nothing per session.
                let echo = EchoDelegate()
                state.routes.exact["/echo"] = .webSocket { _ in .accept(subprotocol: nil) { _ in echo } }
            }
        }
        if options.benchEndpoints {
            let hub = broadcastHub
            // One delegate for every broadcast session: the hub keeps the members, the delegate nothing.
            let delegate = BroadcastDelegate(hub: hub)
            state.withLock { state in
                state.routes.fallback = .webSocket { _ in
                    .accept(subprotocol: nil) { session in
                        _ = hub.join(session)
                        return delegate
                    }
                }
            }
        }
    }

    // MARK: - API

    /// Registers a WebSocket route; call before ``start()``.
    ///
    /// - Parameters:
    ///   - path: the exact path (without query), e.g. `/sync`.
    ///   - decide: runs on a loop thread for each valid upgrade request to `path` and accepts or rejects it.
    public func addWebSocketRoute(_ path: String, decide: @escaping @Sendable (HTTPRequestHead) -> UpgradeDecision) {
        state.withLock { $0.routes.exact[path] = .webSocket(decide) }
    }

    /// Registers a plain-HTTP handler for every path starting with `prefix` (e.g. `/api/v1/`); call before ``start()``.
    /// Its connections are kept alive between requests and may pipeline them.
    public func addHTTPRoute(prefix: String, handler: any HTTPRequestHandler) {
        state.withLock { $0.routes.prefixHandlers.append((prefix, handler)) }
    }

    /// Binds and starts accepting connections; installs the SIGINT/SIGTERM handlers ``runUntilShutdown()`` waits on.
    /// Prints nothing.
    public func start() throws {
        try options.validate()
        Self.unblockShutdownSignals()
        var routes = state.withLock { $0.routes }
        if options.metrics {
            let handler = MetricsHTTPHandler(metrics: metrics, loops: { [weak self] in self?.loops ?? [] },
                                             authorization: options.metricsToken.map(MetricsAuthorization.init(token:)), warnings: warnings,
                                             inputBudget: inputBudget)
            routes.prefixHandlers.insert(("/metrics", handler), at: 0)
        }
        let context = EngineContext(routes: routes, options: options, logger: logger, metrics: metrics, warnings: warnings,
                                    inputBudget: inputBudget, userShares: userShares)
        var tls: ReloadableTLSContext?
        if let certificate = options.tlsCertificateFile, let key = options.tlsKeyFile {
            tls = try ReloadableTLSContext(certificateChainFile: certificate, privateKeyFile: key)
            HangUpSignal.install()
        }
        var config = ServerConfig(host: options.host, port: UInt16(options.port), threads: options.threads,
                                  tickMilliseconds: options.tickMs,
                                  // A queue must hold at least one maximal message plus its header.
                                  maxQueuedBytesPerConnection: max(options.maxQueuedBytes ?? max(4 << 20, 2 * options.maxMessageSize + 64),
                                                                   options.maxMessageSize + 64))
        config.socketSendBufferBytes = options.socketSendBuffer
        // With --tls-port the main port stays plain and a second listener serves TLS; otherwise the main port is TLS.
        config.tls = options.tlsPort == nil ? tls : nil
        let makeHandler: @Sendable (Connection) -> any ConnectionHandler = { EngineConnectionHandler(connection: $0, context: context) }
        let server = try TCPServer(config: config, handlerFactory: makeHandler)
        var tlsServer: TCPServer?
        if let tlsPort = options.tlsPort, let tls {
            var tlsConfig = config
            tlsConfig.port = UInt16(tlsPort)
            tlsConfig.tls = tls
            tlsServer = TCPServer(config: tlsConfig, group: server.group, handlerFactory: makeHandler)
        }
        let signals = try ShutdownSignals()
        broadcastHub.attach(loops: server.group.loops)
        try server.start()
        do {
            try tlsServer?.start()
        } catch {
            server.shutdown()
            server.waitUntilStopped()
            throw error
        }
        state.withLock { state in
            state.tcpServer = server
            state.tlsServer = tlsServer
            state.tls = tls
            state.signals = signals
        }
    }

    /// The port the server listens on (the kernel's choice when `options.port` is 0); 0 before ``start()``.
    public var boundPort: Int {
        state.withLock { $0.tcpServer?.boundPort.map(Int.init) ?? 0 }
    }

    /// The event loops once started (empty before): for metrics and per-loop tasks.
    var loops: [EventLoop] {
        state.withLock { $0.tcpServer?.group.loops ?? [] }
    }

    /// The port of the separate TLS listener (`options.tlsPort`), once started; nil without one (also when
    /// ``boundPort`` itself is TLS).
    public var tlsBoundPort: Int? {
        state.withLock { $0.tlsServer?.boundPort.map(Int.init) }
    }

    /// From any thread: a batch of fan-out messages (``FanOutMessage``), in order, with ONE task per loop for all of
    /// them (the sync thread hands over a whole batch's fan-out this way: one wake-up per loop, not one per frame).
    /// Messages to one session arrive in call order, whatever their form; closed, closing or stale sessions are
    /// skipped.
    ///
    /// Sessions without permessage-deflate get each frame itself, by reference. For sessions that negotiated it, a
    /// complete text or binary frame is deflated once per loop and configuration (RFC 7692 without server context
    /// takeover, which the server always answers), and that compressed frame is shared by reference in turn.
    public func send(messages batch: [(message: FanOutMessage, sessions: [SessionHandle])]) {
        guard let loops = state.withLock({ $0.tcpServer?.group.loops }), !batch.isEmpty else { return }
        if loops.count == 1 {
            let loop = loops[0]
            loop.execute { FanOutBatch.deliver(batch, on: loop) }
            return
        }
        var perLoop = [[(message: FanOutMessage, sessions: [SessionHandle])]](repeating: [], count: loops.count)
        for (message, sessions) in batch {
            for (index, part) in Self.split(message, to: sessions, loopCount: loops.count).enumerated() where !part.sessions.isEmpty {
                perLoop[index].append(part)
            }
        }
        for (index, work) in perLoop.enumerated() where !work.isEmpty {
            let loop = loops[index]
            loop.execute { FanOutBatch.deliver(work, on: loop) }
        }
    }

    /// `message` to `sessions` as one part per loop (a sequenced event's seqs go with their sessions).
    static func split(_ message: FanOutMessage, to sessions: [SessionHandle], loopCount: Int) -> [(message: FanOutMessage, sessions: [SessionHandle])] {
        switch message {
        case .frame, .answer:
            return sessions.groupedByLoop(loopCount: loopCount) { $0.loopIndex }.map { (message, $0) }
        case .sequencedEvent(let body, let seqs):
            let parts = zip(sessions, seqs).map { $0 }.groupedByLoop(loopCount: loopCount) { $0.0.loopIndex }
            return parts.map { part in (.sequencedEvent(body: body, seqs: part.map(\.1)), part.map(\.0)) }
        }
    }

    /// From any thread: starts the close handshake of `session` with `code` and `reason` (no-op if it has gone).
    public func close(_ session: SessionHandle, code: CloseCode, reason: String) {
        guard let loops = state.withLock({ $0.tcpServer?.group.loops }),
              session.loopIndex >= 0, session.loopIndex < loops.count else { return }
        let loop = loops[session.loopIndex]
        loop.execute { Self.session(session, on: loop)?.close(code: code, reason: reason) }
    }

    /// Blocks until SIGINT/SIGTERM or ``shutdown()``; then every session gets close 1001, the server waits a
    /// bounded time for the goodbyes to flush, and returns.
    public func runUntilShutdown() {
        guard let (server, signals) = state.withLock({ state in state.tcpServer.flatMap { server in state.signals.map { (server, $0) } } })
        else { return }
        let (tlsServer, tls) = state.withLock { ($0.tlsServer, $0.tls) }
        var hangUpsSeen = HangUpSignal.count
        let loops = server.group.loops
        // The signal handler only wakes an eventfd; a 100 ms poll also notices shutdown() from another thread,
        // and is the one thread that reports suppressed warnings and the loops' descriptor exhaustion.
        while !state.withLock({ $0.shutdownRequested }) {
            warnings.tick(loops: loops)
            if let signal = signals.wait(timeoutMilliseconds: 100) {
                logger.info("shutting down on signal \(signal)")
                break
            }
            if let tls, HangUpSignal.count != hangUpsSeen {
                hangUpsSeen = HangUpSignal.count
                reloadCertificate(tls)
            }
        }
        tlsServer?.shutdown()
        server.shutdown()
        tlsServer?.waitUntilStopped()
        server.waitUntilStopped()
        warnings.tick(loops: loops, final: true)
    }

    /// SIGHUP: re-read the certificate and key; new connections use them, open ones keep theirs.
    private func reloadCertificate(_ tls: ReloadableTLSContext) {
        do {
            try tls.reload()
            logger.info("TLS certificate reloaded", metadata: ["cert": "\(tls.certificateChainFile)"])
        } catch {
            logger.error("TLS certificate reload failed; keeping the previous one", metadata: ["error": "\(error)"])
        }
    }

    /// Begins shutdown from any thread; ``runUntilShutdown()`` returns once it is done.
    public func shutdown() {
        state.withLock { $0.shutdownRequested = true }
    }

    /// A parent may start us with SIGINT/SIGTERM blocked (the mask survives exec; test runners do this), which
    /// would make graceful shutdown impossible. Unblock them before the loop threads inherit the mask.
    private static func unblockShutdownSignals() {
        var signals = sigset_t()
        sigemptyset(&signals)
        sigaddset(&signals, SIGINT)
        sigaddset(&signals, SIGTERM)
        pthread_sigmask(SIG_UNBLOCK, &signals, nil)
    }

    // MARK: - Loop-side helpers

    /// The open session `handle` names on `loop`, if any. Loop thread only.
    static func session(_ handle: SessionHandle, on loop: EventLoop) -> WebSocketSession? {
        loop.connection(for: handle)?.userData as? WebSocketSession
    }

    static func deliver(_ message: FanOutMessage, to sessions: [SessionHandle], on loop: EventLoop) {
        switch message {
        case .frame(let frame): deliver(frame, to: sessions, on: loop)
        case .answer(let frame): deliver(frame, to: sessions, on: loop, answering: true)
        case .sequencedEvent(let body, let seqs): SequencedEvent.deliver(body: body, seqs: seqs, to: sessions, on: loop)
        }
    }

    /// `frame` to each session (deflated once per configuration for those that negotiated it). With `answering`, it is
    /// each session's answer to one of its requests: queued beyond the slow-consumer cap (answers are bounded by the
    /// requests a session may have in flight instead), and the session may read on.
    static func deliver(_ frame: OutgoingFrame, to sessions: [SessionHandle], on loop: EventLoop, answering: Bool = false) {
        var fanOut = FanOutFrame(frame)
        for handle in sessions {
            guard let session = session(handle, on: loop) else { continue }
            guard answering else {
                session.send(&fanOut)
                continue
            }
            session.connection.writingBeyondQueueCap { session.send(&fanOut) }
            session.requestAnswered()
        }
    }
}

extension HeraldHTTPServer {
    /// Raises the process's open-files limit (RLIMIT_NOFILE) to its hard maximum, as a server holding tens of
    /// thousands of sockets needs; call once at start. Returns the soft limit in force afterwards.
    @discardableResult
    public static func raiseOpenFileLimit() -> Int {
        Int(clamping: HeraldNet.raiseOpenFileLimit().soft)
    }
}
