/// The deadlines that keep a connection alive or end it, in milliseconds on the monotonic clock; shared by server
/// and client so both sides keep a connection the same way. 0 (or nil) turns a deadline off.
///
/// Every connection's state machine holds a copy, so the values are stored in 32 bits (up to about 49 days; longer
/// is clamped, negative is off): 16 bytes a connection instead of 48, which 100,000 idle connections notice.
public struct WebSocketKeepAlive: Sendable, Hashable {
    private var ping: UInt32
    private var pong: UInt32
    private var idle: UInt32
    /// `UInt32.max`: no close timeout.
    private var close: UInt32

    /// Send a ping after this long without reading anything from the peer or pinging it (§5.5.2).
    public var pingIntervalMs: Int64 {
        get { Int64(ping) }
        set { ping = Self.stored(newValue) }
    }

    /// Close 1001 when a ping was sent and nothing at all (pong or otherwise) was read for this long after it.
    public var pongTimeoutMs: Int64 {
        get { Int64(pong) }
        set { pong = Self.stored(newValue) }
    }

    /// Close 1001 "idle timeout" after this long without reading anything.
    public var idleTimeoutMs: Int64 {
        get { Int64(idle) }
        set { idle = Self.stored(newValue) }
    }

    /// After our close frame, drop the transport when the peer has not answered within this long (§7.1.1 lets the
    /// closing endpoint give up; the peer sees 1006). nil: wait for as long as the transport lives.
    public var closeTimeoutMs: Int64? {
        get { close == .max ? nil : Int64(close) }
        set { close = newValue.map(Self.stored) ?? .max }
    }

    public init(pingIntervalMs: Int64 = 0, pongTimeoutMs: Int64 = 0, idleTimeoutMs: Int64 = 0, closeTimeoutMs: Int64? = nil) {
        ping = Self.stored(pingIntervalMs)
        pong = Self.stored(pongTimeoutMs)
        idle = Self.stored(idleTimeoutMs)
        close = closeTimeoutMs.map(Self.stored) ?? .max
    }

    /// No timers: the machine only reacts to what it reads and what it is asked to send.
    public static let off = WebSocketKeepAlive()

    /// `milliseconds` in 32 bits: negative is 0 (off, or at once for the close timeout), and the largest value is kept
    /// below the "none" mark.
    private static func stored(_ milliseconds: Int64) -> UInt32 {
        UInt32(clamping: min(max(milliseconds, 0), Int64(UInt32.max - 1)))
    }
}
