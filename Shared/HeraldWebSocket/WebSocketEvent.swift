/// What the peer did, as values: ``WebSocketStateMachine``'s actions turned into a transcript by
/// ``WebSocketStateMachine/receive(_:now:output:onEvent:)``, for tests, tools and fuzzing that record a connection
/// rather than carry its actions out. Transports use ``WebSocketAction`` directly, without these copies.
public enum WebSocketEvent: Sendable, Hashable {
    /// A complete text message, already validated as UTF-8 (§8.1), as its bytes.
    case text([UInt8])
    /// A complete binary message.
    case binary([UInt8])
    /// A ping; the matching pong has already been appended to the output (§5.5.2).
    case ping([UInt8])
    /// A pong, solicited or not (§5.5.3); useful as a liveness signal.
    case pong([UInt8])
    /// The close handshake finished: either the peer's close arrived (our reply is already in the output) or the
    /// peer answered our close. `code` is `nil` when the close frame had no status code (reported as 1005, §7.1.5).
    /// The transport should close TCP once the output is flushed.
    case closed(code: CloseCode?, reason: String)
    /// The peer violated the protocol. A close frame with the error's code is already in the output (unless we had
    /// already sent one); the transport should close TCP once the output is flushed (§7.1.7).
    case failed(WebSocketProtocolError)
}

/// Where a connection is in its life (RFC 6455 §4, §7).
public enum WebSocketConnectionState: Sendable, Hashable {
    /// Messages flow both ways.
    case open
    /// We sent a close frame and wait for the peer's (§7.1.2); incoming data is still delivered.
    case closing
    /// The close handshake completed or the connection failed; nothing more is sent or delivered.
    /// The transport should close the TCP connection after flushing the output (§7.1.1).
    case closed
}

extension WebSocketStateMachine {
    /// Feeds received bytes like ``receive(_:now:)``, and replays its actions as a transcript: bytes to write are
    /// appended to `output`, and `onEvent` is called for each event, in order. Copies every payload; not for a
    /// transport's hot path.
    public mutating func receive(_ bytes: UnsafeRawBufferPointer, now: Int64 = 0, output: inout [UInt8], onEvent: (WebSocketEvent) -> Void) {
        receive(bytes, now: now)
        for action in actions {
            switch action {
            case .deliver(let opcode, let range):
                onEvent(opcode == .text ? .text(Array(received[range])) : .binary(Array(received[range])))
            case .write(let range):
                output.append(contentsOf: outgoing[range])
            case .receivedPing(let range):
                onEvent(.ping(Array(received[range])))
            case .receivedPong(let range):
                onEvent(.pong(Array(received[range])))
            case .peerClosed(let code, let reason):
                onEvent(.closed(code: code, reason: String(decoding: received[reason], as: UTF8.self)))
            case .failed(let error):
                onEvent(.failed(error))
            case .closeStarted, .closeTransport, .setTimer:
                break
            }
        }
    }

    /// Feeds received bytes from an array; see ``receive(_:now:output:onEvent:)``.
    public mutating func receive(_ bytes: [UInt8], now: Int64 = 0, output: inout [UInt8], onEvent: (WebSocketEvent) -> Void) {
        bytes.withUnsafeBytes { receive($0, now: now, output: &output, onEvent: onEvent) }
    }
}
