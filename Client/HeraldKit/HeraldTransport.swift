/// A byte stream to the server that an app provides in place of the library's own TCP socket and TLS, for example one
/// on Apple's Network framework. The session asks for one connection per attempt and runs the WebSocket over it;
/// without a transport (the default) it uses its own sockets, with TLS for `wss://`.
public protocol HeraldTransport: Sendable {
    /// Opens a connection to `host`:`port`, with TLS when `secure` (the server's URL is `wss://`): the connection
    /// carries the WebSocket's bytes, so a secure one encrypts them itself. It reports on `events`:
    /// ``TransportEvents/opened()`` once connected, then ``TransportEvents/received(_:)`` for what the server sends,
    /// and ``TransportEvents/closed(error:)`` when it ends.
    func connect(host: String, port: Int, secure: Bool, events: TransportEvents) -> any TransportConnection
}

/// One connection a ``HeraldTransport`` opened.
public protocol TransportConnection: Sendable {
    /// Writes bytes for the server, in order; called on the session's thread, so it must not block for long.
    func send(_ bytes: [UInt8])
    /// Ends the connection; the session reads nothing from it after this.
    func close()
}
