import HeraldNet
import HeraldSync

/// A WebSocket session's identity that any thread may hold and pass to ``HeraldHTTPServer/send(messages:)`` or
/// ``HeraldHTTPServer/close(_:code:reason:)``.
///
/// It names one use of one connection: once the session closes, the handle goes stale and messages sent to it are
/// dropped, even if the descriptor number is reused by a new connection. It is the sync core's ``DeviceHandle``
/// itself, so the core runs specialised for it and nothing is converted between the two.
public typealias SessionHandle = DeviceHandle

extension DeviceHandle {
    /// The handle of the session on `connection`.
    public init(_ connection: ConnectionHandle) {
        self.init(loopIndex: connection.loopIndex, descriptor: connection.fd, generation: connection.generation)
    }

    /// The underlying connection's handle (loop, descriptor, generation).
    public var connection: ConnectionHandle { ConnectionHandle(loopIndex: loopIndex, fd: descriptor, generation: generation) }
}
