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
