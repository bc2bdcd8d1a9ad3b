import HeraldProtocol
import HeraldWebSocket

/// The client's end of one WebSocket to the server over bytes: the opening handshake (RFC 6455 §4.1) with
/// the token, then framing through `WebSocketConnection(role: .client)`. Sans-IO: bytes in, events and bytes out.
struct ClientWebSocket {
    enum Event: Equatable {
        /// The handshake succeeded; the stream can start.
        case opened
        case text(String)
        /// The server refused the upgrade with this status (401: the token).
        case rejected(status: Int?, reason: String)
        /// The connection ended (close handshake or protocol failure).
        case closed(reason: String)
    }

    private enum Phase {
        case handshaking(HTTPResponseHeadParser)
        case open
        case closed
    }

    private let key: String
    private var phase: Phase
    private var connection = WebSocketConnection(role: .client)
    /// Bytes to write to the socket.
    var output: [UInt8] = []

    init(address: ServerAddress, token: String) {
        key = WebSocketHandshake.randomClientKey()
        phase = .handshaking(HTTPResponseHeadParser())
        output = WebSocketHandshake.clientRequest(
            host: address.hostHeader, path: address.path, key: key, subprotocols: [HeraldProtocolVersion.subprotocol],
            extraHeaders: [("Authorization", "Bearer \(token)")])
    }

    var isOpen: Bool {
        if case .open = phase { return connection.state == .open }
        return false
    }

    /// Feeds bytes read from the socket.
    mutating func receive(_ bytes: ArraySlice<UInt8>) -> [Event] {
        switch phase {
        case .closed:
            return []
        case .open:
            return frames(Array(bytes))
        case .handshaking(var parser):
            switch parser.parse(Array(bytes)) {
            case .needMore:
                phase = .handshaking(parser)
                return []
            case .failed(let reason):
                phase = .closed
                return [.rejected(status: nil, reason: "bad HTTP response: \(reason)")]
            case .complete(let head, let consumed):
                switch WebSocketHandshake.validateServerResponse(head, key: key, offeredSubprotocols: [HeraldProtocolVersion.subprotocol]) {
                case .failure(let failure):
                    phase = .closed
                    return [.rejected(status: failure.status, reason: failure.description)]
                case .success:
                    phase = .open
                    let rest = Array(bytes.dropFirst(consumed))
                    return [.opened] + (rest.isEmpty ? [] : frames(rest))
                }
            }
        }
    }

    private mutating func frames(_ bytes: [UInt8]) -> [Event] {
        var events: [Event] = []
        connection.receive(bytes, output: &output) { event in
            switch event {
            case .text(let text): events.append(.text(text))
            case .binary, .ping, .pong: break
            case .closed(let code, let reason): events.append(.closed(reason: "server closed the connection (\(code.map { String($0.rawValue) } ?? "no code")) \(reason)"))
            case .failed(let error): events.append(.closed(reason: "protocol error: \(error)"))
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
