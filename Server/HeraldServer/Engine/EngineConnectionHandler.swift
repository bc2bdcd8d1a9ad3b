import HeraldDeflate
import HeraldNet
import HeraldWebSocket
import Logging
import Synchronization

/// Drives one accepted connection: first as HTTP (read a request head within the handshake timeout, route it,
/// answer or upgrade), then, once upgraded, as a ``WebSocketSession``.
///
/// Plain HTTP answers carry `Connection: close` and the connection closes after them; nothing here keeps an
/// HTTP connection alive. Bad input gets its status (400, 404, 426, 431, 505) and a close, never a crash.
final class EngineConnectionHandler: ConnectionHandler {
    private let context: EngineContext
    private var headParser = HTTPRequestHeadParser(maxHeadSize: 8192)
    private var session: WebSocketSession?
    /// The request was answered (or refused); whatever else the peer sends is ignored.
    private var isDone = false
    /// This connection counts against `maxConnections`.
    private let isCounted: Bool

    init(connection: Connection, context: EngineContext) {
        self.context = context
        let open = context.openConnections.wrappingAdd(1, ordering: .relaxed).newValue
        isCounted = true
        // E9: the handshake deadline is a tick stored on the connection; the loop's sweep compares it.
        connection.nextDeadline = connection.loop.now.adding(milliseconds: Int64(context.handshakeTimeoutMs))
        if open > context.maxConnections {
            respond(connection, status: 503, reason: "too many connections")
        }
    }

    // MARK: - ConnectionHandler

    func connectionDidRead(_ connection: Connection, _ bytes: UnsafeRawBufferPointer) {
        if let session {
            session.receive(bytes)
            return
        }
        guard !isDone else { return }
        switch headParser.parse(bytes) {
        case .needMore:
            return
        case .failed(let status, let reason):
            context.logger.debug("bad HTTP request", metadata: ["conn": "\(connection.handle)", "status": "\(status)", "reason": "\(reason)"])
            respond(connection, status: status, reason: reason)
        case .complete(let head, let consumed):
            route(head, on: connection)
            // Bytes after the head (a client may send its first frame right behind the request) belong to the session.
            if let session, consumed < bytes.count {
                session.receive(UnsafeRawBufferPointer(rebasing: bytes[consumed...]))
            }
        }
    }

    func connectionTimerTick(_ connection: Connection, now: Tick) {
        if let session {
            session.timerTick(now: now)
            return
        }
        // The request head did not arrive in time (slowloris), or our answer could not be delivered in time:
        // drop the connection without (further) answer.
        if !isDone { context.logger.debug("handshake timeout", metadata: ["conn": "\(connection.handle)"]) }
        connection.nextDeadline = nil
        connection.close(afterFlush: false)
    }

    func connectionDidClose(_ connection: Connection) {
        if isCounted { context.openConnections.wrappingSubtract(1, ordering: .relaxed) }
        connection.userData = nil
        session?.transportDidClose()
        session = nil
    }

    func connectionShouldShutDown(_ connection: Connection) {
        if let session {
            session.shutDown()
        } else {
            connection.close(afterFlush: true)
        }
    }

    // MARK: - Routing

    private func route(_ head: HTTPRequestHead, on connection: Connection) {
        guard let endpoint = context.routes.endpoint(for: head.path) else {
            return respond(connection, status: 404, reason: "no such endpoint: \(head.path)")
        }
        switch endpoint {
        case .health:
            guard head.method == "GET" || head.method == "HEAD" else {
                return respond(connection, status: 405, reason: "use GET", headers: [("Allow", "GET, HEAD")])
            }
            respond(connection, status: 200, reason: "ok")
        case .webSocket(let decide):
            switch WebSocketHandshake.validateUpgrade(head) {
            case .failure(let rejection):
                context.logger.debug("bad upgrade", metadata: ["conn": "\(connection.handle)", "status": "\(rejection.status)"])
                finish(connection, response: rejection.response)
            case .success(let upgrade):
                switch decide(head) {
                case .reject(let status, let message):
                    respond(connection, status: status, reason: message)
                case .accept(let subprotocol, let makeDelegate):
                    // §4.2.2: a subprotocol the client did not offer must not be selected.
                    let chosen = subprotocol.flatMap { upgrade.offeredSubprotocols.contains($0) ? $0 : nil }
                    upgradeConnection(connection, upgrade: upgrade, subprotocol: chosen, makeDelegate: makeDelegate)
                }
            }
        }
    }

    private func upgradeConnection(_ connection: Connection, upgrade: UpgradeRequest, subprotocol: String?,
                                   makeDelegate: @Sendable (WebSocketSession) -> any WebSocketSessionDelegate) {
        // RFC 7692: accept the client's first acceptable permessage-deflate offer, if compression is on.
        let agreed = context.deflate?.negotiate(upgrade.offeredExtensions)
        let compression = agreed.flatMap { try? PerMessageDeflate(parameters: $0, role: .server) }
        connection.write(WebSocketHandshake.serverResponse(for: upgrade, subprotocol: subprotocol,
                                                           extensionsHeader: compression == nil ? nil : agreed?.responseHeader))
        let session = WebSocketSession(connection: connection, request: upgrade.head, subprotocol: subprotocol,
                                       limits: context.limits, timing: context.timing, logger: context.logger,
                                       compression: compression)
        self.session = session
        connection.userData = session
        session.attach(makeDelegate(session))
        context.logger.debug("websocket open", metadata: ["conn": "\(connection.handle)", "path": "\(upgrade.head.path)"])
    }

    private func respond(_ connection: Connection, status: Int, reason: String, headers: [(String, String)] = []) {
        finish(connection, response: WebSocketHandshake.rejectionResponse(status: status, reason: reason, headers: headers))
    }

    /// Writes a final HTTP response and closes once it is flushed.
    private func finish(_ connection: Connection, response: [UInt8]) {
        // The handshake deadline stays armed: a peer that never reads the answer is dropped when it passes.
        isDone = true
        connection.write(response)
        connection.close(afterFlush: true)
    }
}
