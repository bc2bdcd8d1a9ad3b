import HeraldDeflate
import HeraldProtocol
import HeraldWebSocket

/// The client's end of one WebSocket to the server over bytes: the opening handshake (RFC 6455 §4.1) with
/// the token and, unless turned off, a permessage-deflate offer (RFC 7692); then framing through
/// `WebSocketStateMachine(role: .client)`, with the agreed compression plugged in, whose actions it carries out.
/// Sans-IO: bytes in, events and bytes out (plaintext: TLS, if any, is below this type).
struct ClientWebSocket {
    enum Event: Equatable {
        /// The handshake succeeded; the stream can start.
        case opened
        /// A text message: its UTF-8, already validated.
        case text([UInt8])
        /// The server refused the upgrade with this status (401: the token); `explanation` is the server's own reason
        /// from the response body (e.g. `token expired`), when it gave one.
        case rejected(status: Int?, reason: String, explanation: String? = nil)
        /// The connection ended (close handshake or protocol failure).
        case closed(code: UInt16?, reason: String)
    }

    private enum Phase {
        case handshaking(HTTPResponseHeadParser)
        /// The server answered with something other than 101; its body (the reason) is still arriving.
        case readingRefusal(UpgradeRefusalBody)
        case open
        case closed
    }

    private let key: String
    private var phase: Phase
    private var connection = WebSocketStateMachine(role: .client)
    /// What we offered of permessage-deflate; nil when compression is off.
    private let compressionOffer: PerMessageDeflateClientConfiguration?
    /// The permessage-deflate agreement, once the server accepted the offer (nil: uncompressed).
    private(set) var compression: PerMessageDeflateParameters?
    /// The keep-alive deadlines the state machine keeps once the connection is open.
    private let keepAlive: WebSocketKeepAlive
    /// Bytes to write to the socket.
    var output: [UInt8] = []

    /// - Parameters:
    ///   - compression: the permessage-deflate offer, or nil to offer no extension.
    ///   - keepAlive: pings, idle and close timeouts, as the server keeps them; off by default (the server pings).
    init(address: ServerAddress, token: String, compression: PerMessageDeflateClientConfiguration? = PerMessageDeflateClientConfiguration(),
         keepAlive: WebSocketKeepAlive = .off) {
        self.keepAlive = keepAlive
        key = WebSocketHandshake.randomClientKey()
        phase = .handshaking(HTTPResponseHeadParser())
        compressionOffer = compression
        var headers = [("Authorization", "Bearer \(token)")]
        if let compression { headers.append(("Sec-WebSocket-Extensions", compression.offerHeader)) }
        output = WebSocketHandshake.clientRequest(
            host: address.hostHeader, path: address.path, key: key, subprotocols: [HeraldProtocolVersion.subprotocol],
            extraHeaders: headers)
    }

    var isOpen: Bool {
        if case .open = phase { return connection.state == .open }
        return false
    }

    /// When ``timerFired(now:)`` is due (milliseconds, monotonic); nil before the connection opens or without deadlines.
    var nextDeadline: Int64? {
        if case .open = phase { return connection.nextDeadline }
        return nil
    }

    /// Feeds bytes read from the socket at `now` (milliseconds, monotonic).
    mutating func receive(_ bytes: ArraySlice<UInt8>, now: Int64) -> [Event] {
        switch phase {
        case .closed:
            return []
        case .open:
            return frames(Array(bytes), now: now)
        case .readingRefusal(var body):
            body.append(bytes)
            return refusal(body)
        case .handshaking(var parser):
            switch parser.parse(Array(bytes)) {
            case .needMore:
                phase = .handshaking(parser)
                return []
            case .failed(let reason):
                phase = .closed
                return [.rejected(status: nil, reason: "bad HTTP response: \(reason)")]
            case .complete(let head, let consumed):
                switch WebSocketHandshake.validateServerResponse(
                    head, key: key, offeredSubprotocols: [HeraldProtocolVersion.subprotocol], allowExtensions: compressionOffer != nil) {
                case .failure(let failure) where failure.status != nil:
                    return refusal(UpgradeRefusalBody(head: head, failure: failure, initial: bytes.dropFirst(consumed)))
                case .failure(let failure):
                    phase = .closed
                    return [.rejected(status: nil, reason: failure.description)]
                case .success:
                    if let refusal = acceptExtensions(head, now: now) {
                        phase = .closed
                        return [.rejected(status: nil, reason: refusal)]
                    }
                    phase = .open
                    let rest = Array(bytes.dropFirst(consumed))
                    return [.opened] + (rest.isEmpty ? [] : frames(rest, now: now))
                }
            }
        }
    }

    /// The refusal once its body is complete (nothing until then).
    private mutating func refusal(_ body: UpgradeRefusalBody) -> [Event] {
        guard body.isComplete else {
            phase = .readingRefusal(body)
            return []
        }
        phase = .closed
        return [.rejected(status: body.status, reason: body.failure, explanation: body.reason)]
    }

    /// The connection ended: a refusal whose body was cut short is reported with what came of it.
    mutating func connectionEnded() -> [Event] {
        guard case .readingRefusal(let body) = phase else { return [] }
        phase = .closed
        return [.rejected(status: body.status, reason: body.failure, explanation: body.reason)]
    }

    /// RFC 7692 §5: checks the server's `Sec-WebSocket-Extensions` against our offer and installs the agreed
    /// compression. Returns why the response must fail the connection, or nil.
    /// The state machine starts here, at `now`, with the agreed compression.
    private mutating func acceptExtensions(_ head: HTTPResponseHead, now: Int64) -> String? {
        connection = WebSocketStateMachine(role: .client, keepAlive: keepAlive, now: now)
        guard let compressionOffer else { return nil }
        do {
            guard let agreed = try compressionOffer.acceptResponse(head.headers.values(for: "Sec-WebSocket-Extensions")) else { return nil }
            let codec = try PerMessageDeflate(parameters: agreed, role: .client)
            connection = WebSocketStateMachine(role: .client, compression: codec, keepAlive: keepAlive, now: now)
            compression = agreed
            return nil
        } catch {
            return "the server's permessage-deflate response is invalid: \(error)"
        }
    }

    private mutating func frames(_ bytes: [UInt8], now: Int64) -> [Event] {
        bytes.withUnsafeBytes { connection.receive($0, now: now) }
        return carryOutActions()
    }

    /// The keep-alive timer is due: a ping, or the close an idle or unanswered connection gets.
    mutating func timerFired(now: Int64) -> [Event] {
        guard case .open = phase else { return [] }
        connection.timerFired(now: now)
        return carryOutActions()
    }

    /// The machine's last actions: bytes go to ``output``, messages and endings become events.
    private mutating func carryOutActions() -> [Event] {
        var events: [Event] = []
        for action in connection.actions {
            switch action {
            case .deliver(let opcode, let range):
                if opcode == .text { events.append(.text(Array(connection.received[range]))) }
            case .write(let range):
                output.append(contentsOf: connection.outgoing[range])
            case .peerClosed(let code, let range):
                let reason = String(decoding: connection.received[range], as: UTF8.self)
                events.append(.closed(code: code?.rawValue, reason: "server closed the connection (\(code.map { String($0.rawValue) } ?? "no code")) \(reason)"))
            case .failed(let error):
                events.append(.closed(code: nil, reason: "protocol error: \(error)"))
            case .closeStarted(let code, let cause):
                events.append(.closed(code: code.rawValue, reason: "closed by the client's keep-alive (\(cause))"))
            case .closeTransport(let afterFlush):
                if !afterFlush { events.append(.closed(code: nil, reason: "the server did not answer our close in time")) }
            case .receivedPing, .receivedPong, .setTimer:
                break
            }
        }
        if connection.state == .closed { phase = .closed }
        return events
    }

    /// Queues one text message.
    mutating func send(_ text: String) {
        connection.sendText(text, into: &output)
    }

    /// Starts the close handshake (1000).
    mutating func close() {
        connection.close(code: .normal, reason: "bye", into: &output)
    }
}
