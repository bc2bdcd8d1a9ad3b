/// Something the peer did, reported by ``WebSocketConnection/receive(_:output:onEvent:)``.
public enum WebSocketEvent: Sendable, Hashable {
    /// A complete text message, already validated as UTF-8 (§8.1).
    case text(String)
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
