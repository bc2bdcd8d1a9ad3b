import HeraldNet

/// A WebSocket session's identity that any thread may hold and pass to ``HeraldHTTPServer/send(messages:)`` or
/// ``HeraldHTTPServer/close(_:code:reason:)``.
///
/// It names one use of one connection: once the session closes, the handle goes stale and messages sent to it are
/// dropped, even if the descriptor number is reused by a new connection.
public struct SessionHandle: Sendable, Hashable, CustomStringConvertible {
    /// The underlying connection's handle (loop, descriptor, generation).
    public let connection: ConnectionHandle

    /// Wraps a connection handle.
    public init(_ connection: ConnectionHandle) { self.connection = connection }

    public var description: String { connection.description }
}
