import HeraldWebSocket

/// What a WebSocket route decides for one upgrade request (see ``HeraldHTTPServer/addWebSocketRoute(_:decide:)``).
public enum UpgradeDecision {
    /// Upgrade. `subprotocol` must be one the client offered (or nil); `makeDelegate` is called on the loop thread
    /// once the 101 response is queued, and its delegate receives the session's messages.
    case accept(subprotocol: String?, makeDelegate: @Sendable (WebSocketSession) -> any WebSocketSessionDelegate)
    /// Refuse with an HTTP status (e.g. 401) and a short plain-text body; no upgrade.
    case reject(status: Int, message: String)
}

/// The loop-thread callbacks of upgraded connections.
///
/// Every call arrives on the session's loop thread; a delegate must not block. A delegate that keeps nothing per
/// session may serve every session of its route (each call names its session), so an idle session costs no delegate. The session holds its delegate
/// strongly until ``sessionDidClose(_:)``, after which it lets go (so a delegate may keep its session without a leak).
public protocol WebSocketSessionDelegate: AnyObject {
    /// A complete text message: its bytes, already validated as UTF-8 (RFC 6455 §8.1). They are lent for the call
    /// only (the session's receive buffer): a delegate that keeps them copies them.
    func sessionDidReceiveText(_ session: WebSocketSession, _ text: UnsafeRawBufferPointer)
    /// A complete binary message, lent for the call like a text message.
    func sessionDidReceiveBinary(_ session: WebSocketSession, _ bytes: UnsafeRawBufferPointer)
    /// The session ended, whatever the cause (close handshake, protocol error, timeout, shutdown, TCP drop).
    /// Called exactly once; sending from here on does nothing.
    func sessionDidClose(_ session: WebSocketSession)
    /// The route its sessions were upgraded on, as logs name it (e.g. `/sync`): a session keeps nothing of its
    /// request, so its delegate says where it came from.
    var route: String { get }
}
