/// The deadlines that keep a connection alive or end it, in milliseconds on the monotonic clock; shared by server
/// and client so both sides keep a connection the same way. 0 (or nil) turns a deadline off.
public struct WebSocketKeepAlive: Sendable, Hashable {
    /// Send a ping after this long without reading anything from the peer or pinging it (§5.5.2).
    public var pingIntervalMs: Int64
    /// Close 1001 when a ping was sent and nothing at all (pong or otherwise) was read for this long after it.
    public var pongTimeoutMs: Int64
    /// Close 1001 "idle timeout" after this long without reading anything.
    public var idleTimeoutMs: Int64
    /// After our close frame, drop the transport when the peer has not answered within this long (§7.1.1 lets the
    /// closing endpoint give up; the peer sees 1006). nil: wait for as long as the transport lives.
    public var closeTimeoutMs: Int64?

    public init(pingIntervalMs: Int64 = 0, pongTimeoutMs: Int64 = 0, idleTimeoutMs: Int64 = 0, closeTimeoutMs: Int64? = nil) {
        self.pingIntervalMs = pingIntervalMs
        self.pongTimeoutMs = pongTimeoutMs
        self.idleTimeoutMs = idleTimeoutMs
        self.closeTimeoutMs = closeTimeoutMs
    }

    /// No timers: the machine only reacts to what it reads and what it is asked to send.
    public static let off = WebSocketKeepAlive()
}
