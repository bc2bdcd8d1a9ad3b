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
