import HeraldNet
import HeraldSync

/// A WebSocket session's identity that any thread may hold and pass to ``HeraldHTTPServer/send(messages:)`` or
/// ``HeraldHTTPServer/close(_:code:reason:)``.
///
/// It names one use of one connection: once the session closes, the handle goes stale and messages sent to it are
/// dropped, even if the descriptor number is reused by a new connection. It is the connection's handle, which is
/// also the sync core's ``DeviceHandle``, so the core runs specialised for it and nothing is converted between them.
public typealias SessionHandle = DeviceHandle
