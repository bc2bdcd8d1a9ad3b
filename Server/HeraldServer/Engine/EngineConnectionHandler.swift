import HeraldDeflate
import HeraldNet
import HeraldWebSocket
import Logging
import Synchronization

/// Drives one accepted connection as HTTP: reads a request head within the handshake timeout, routes it, answers or
/// upgrades. On upgrade it hands the connection to the new ``WebSocketSession`` and is let go.
///
/// Requests to a plain-HTTP prefix route (the backend API) are read with their bodies and kept alive (HTTP/1.1
/// default; `Connection: close` and HTTP/1.0 honoured); pipelined requests wait in the reader and are answered
/// in order, one at a time. Every other answer (health, 404, refused upgrades) carries `Connection: close` and
/// the connection closes after it. Bad input gets its status (400, 404, 413, 426, 431, 505) and a close, never a crash.
final class EngineConnectionHandler: ConnectionHandler {
    private let context: EngineContext
    private var reader = HTTPRequestReader(maxHeadSize: 8192)
    /// A plain-HTTP request whose body is being read: its head and handler.
    private var pendingRequest: (head: HTTPRequestHead, handler: any HTTPRequestHandler)?
    /// Set by the upgrade, for the rest of the read that carried the request.
    private var session: WebSocketSession?
    /// The request was answered (or refused); whatever else the peer sends is ignored.
    private var isDone = false
    /// A handler is working on a request; later requests wait in the reader until it answers.
    private var awaitingResponse = false
    /// How many bytes of later requests may wait behind one being answered.
    static let maxPipelinedBytes = 4 << 20
    static let continueResponse = Array("HTTP/1.1 100 Continue\r\n\r\n".utf8)
    /// The connection counts against its address's per-IP limits (``Connection/remoteAddress``); released on close.
    private var isAdmitted = false

    init(connection: Connection, context: EngineContext) {
        self.context = context
        let open = context.openConnections.wrappingAdd(1, ordering: .relaxed).newValue
        // The handshake deadline is a tick stored on the connection; the loop's sweep compares it.
        connection.nextDeadline = connection.loop.now.adding(milliseconds: Int64(context.handshakeTimeoutMs))
        if open > context.maxConnections {
            context.metrics.countRefusal(.maxConnections)
            context.warnings.warn(.connectionRefused, "refused: connection limit",
                                  metadata: ["peer": "\(connection.remoteAddress)", "limit": "max_connections", "status": "503"])
            respond(connection, status: 503, reason: "too many connections", headers: [("Retry-After", "1")])
        } else if context.admission.isEnabled {
            admit(connection)
        }
    }

    /// Applies the per-IP limits; a refusal is answered 429 at once, before the request is even read.
    private func admit(_ connection: Connection) {
        switch context.admission.admit(connection.remoteAddress, nowMs: connection.loop.now.milliseconds) {
        case .admitted:
            isAdmitted = true
        case .tooManyConnections:
            context.metrics.countRefusal(.perAddressConnections)
            context.warnings.warn(.connectionRefused, "refused: connection limit",
                                  metadata: ["peer": "\(connection.remoteAddress)", "limit": "per_ip_connections", "status": "429"])
            respond(connection, status: 429, reason: "too many connections from your address", headers: [("Retry-After", "1")])
        case .tooManyHandshakes(let waitMs):
            context.metrics.countRefusal(.handshakeRate)
            context.warnings.warn(.connectionRefused, "refused: connection limit",
                                  metadata: ["peer": "\(connection.remoteAddress)", "limit": "handshake_rate", "status": "429"])
            respond(connection, status: 429, reason: "too many new connections from your address",
                    headers: [("Retry-After", String(max(1, (waitMs + 999) / 1000)))])
        }
    }

    // MARK: - ConnectionHandler

    func connectionDidRead(_ connection: Connection, _ bytes: UnsafeRawBufferPointer) {
        guard !isDone else { return }
        reader.append(bytes)
        // Pipelined requests wait while one is answered, but not without bound.
        if awaitingResponse && reader.bufferedCount > Self.maxPipelinedBytes {
            isDone = true
            return connection.close(afterFlush: false)
        }
        readRequests(connection)
    }

    /// Handles every complete request the buffered bytes make, until one is in flight, the connection upgraded or
    /// it is done.
    private func readRequests(_ connection: Connection) {
        while !isDone && session == nil && !awaitingResponse {
            switch reader.next() {
            case .needMore:
                return
            case .failed(let failure):
                context.metrics.badRequests.add(1)
                context.logger.debug("bad HTTP request", metadata: ["conn": "\(connection.handle)", "status": "\(failure.status)", "reason": "\(failure.message)"])
                finish(connection, response: HTTPResponse.error(failure.status, code: failure.code, failure.message).serialized(keepAlive: false))
            case .head(let head):
                if let handler = context.routes.httpHandler(for: head.path) {
                    pendingRequest = (head, handler)
                    if let failure = reader.beginBody(of: head, maxBodySize: handler.maxBodySize) {
                        finish(connection, response: HTTPResponse.error(failure.status, code: failure.code, failure.message).serialized(keepAlive: false))
                    } else if head.version == .http11, reader.bufferedCount == 0, head.headers.listContainsToken("Expect", "100-continue") {
                        // RFC 9110 §10.1.1: the client (curl, for bodies over 1 KiB) waits for this before sending the body.
                        connection.write(Self.continueResponse)
                    }
                } else {
                    reader.skipBody()
                    route(head, on: connection)
                    // Upgraded: this handler is let go after this read. Bytes after the head (a client may send its
                    // first frame right behind the request) belong to the session.
                    guard let session else { continue }
                    if reader.bufferedCount > 0 {
                        let rest = reader.takeBuffered()
                        rest.withUnsafeBytes { session.receive($0) }
                    }
                    return
                }
            case .body(let body):
                guard let (head, handler) = pendingRequest else { continue }
                pendingRequest = nil
                dispatch(HTTPRequest(head: head, body: body), to: handler, on: connection)
            }
        }
    }

    /// Hands a request to its handler; the answer comes back to this loop, is written, and reading goes on.
    private func dispatch(_ request: HTTPRequest, to handler: any HTTPRequestHandler, on connection: Connection) {
        awaitingResponse = true
        // The handler may take a while (it goes through the sync thread): no deadline while it works.
        connection.nextDeadline = nil
        connection.userData = self
        let loop = connection.loop, handle = connection.handle
        let keepAlive = Self.keepsAlive(request.head)
        let omitBody = request.head.method == "HEAD"
        let info = HTTPConnectionInfo(remoteAddress: connection.remoteAddress, openConnections: context.openConnections.load(ordering: .relaxed))
        handler.handle(request, connection: info) { response in
            let bytes = response.serialized(keepAlive: keepAlive, omitBody: omitBody)
            loop.execute {
                guard let connection = loop.connection(for: handle), let me = connection.userData as? EngineConnectionHandler else { return }
                me.didRespond(connection, bytes: bytes, keepAlive: keepAlive)
            }
        }
    }

    private func didRespond(_ connection: Connection, bytes: [UInt8], keepAlive: Bool) {
        guard awaitingResponse else { return }
        awaitingResponse = false
        // Closing: after `Connection: close`, HTTP/1.0, or when the server shuts down meanwhile.
        guard keepAlive, !isDone else { return finish(connection, response: bytes) }
        connection.write(bytes)
        // The next request gets as long as the first one had.
        connection.nextDeadline = connection.loop.now.adding(milliseconds: Int64(context.handshakeTimeoutMs))
        readRequests(connection)
    }

    /// RFC 9112 §9.3: HTTP/1.1 persists unless `Connection: close`; HTTP/1.0 only with `Connection: keep-alive`.
    static func keepsAlive(_ head: HTTPRequestHead) -> Bool {
        if head.headers.listContainsToken("Connection", "close") { return false }
        if head.version == .http10 { return head.headers.listContainsToken("Connection", "keep-alive") }
        return true
    }

    func connectionTimerTick(_ connection: Connection, now: Tick) {
        // The request did not arrive in time (slowloris, or an idle keep-alive connection), or our answer could not
        // be delivered in time: drop the connection without (further) answer.
        if !isDone {
            context.metrics.handshakeTimeouts.add(1)
            context.logger.debug("request timeout", metadata: ["conn": "\(connection.handle)"])
        }
        connection.nextDeadline = nil
        connection.close(afterFlush: false)
    }

    func connectionDidClose(_ connection: Connection) {
        context.connectionClosed(connection, admitted: isAdmitted, route: "-")
    }

    func connectionShouldShutDown(_ connection: Connection) {
        if awaitingResponse {
            // Let the answer in flight go out, then close.
            isDone = true
            connection.nextDeadline = connection.loop.now.adding(milliseconds: 2000)
        } else {
            connection.close(afterFlush: true)
        }
    }

    // MARK: - Routing

    private func route(_ head: HTTPRequestHead, on connection: Connection) {
        guard let endpoint = context.routes.endpoint(for: head.path) else {
            context.metrics.badRequests.add(1)
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
                context.metrics.badRequests.add(1)
                context.logger.debug("bad upgrade", metadata: ["conn": "\(connection.handle)", "status": "\(rejection.status)"])
                finish(connection, response: rejection.response)
            case .success(let upgrade):
                switch decide(head) {
                case .reject(let status, let message):
                    context.metrics.badRequests.add(1)
                    if status == 401 || status == 403 {
                        // The route's message says why (expired, bad signature, malformed); it never holds the token.
                        context.warnings.warn(.authenticationFailed, "refused: authentication failed",
                                              metadata: ["peer": "\(connection.remoteAddress)", "route": "\(head.path)",
                                                         "status": "\(status)", "reason": "\(message)"])
                    }
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
        // An idle session should cost little: it keeps nothing of the request head (the route's `decide` already saw
        // every header, the path and the query).
        let session = WebSocketSession(connection: connection, context: context, compression: compression, isAdmitted: isAdmitted)
        context.metrics.upgrades.add(1)
        context.metrics.webSocketSessions.add(1)
        self.session = session
        connection.userData = session
        // The session handles the connection from here on, and closes its books (counts, the per-IP slot); this
        // handler goes once the current read is done.
        connection.replaceHandler(with: session)
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
