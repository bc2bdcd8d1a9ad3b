import HeraldNet
import HeraldWebSocket

/// The buffers every WebSocket session of one loop shares: a session uses them only while it handles an input or
/// encodes a frame, so an idle session holds none. Loop-confined: one per loop, kept in ``EventLoop/attachment``.
final class SessionScratch {
    /// Lent to a session's state machine for one input (``WebSocketStateMachine/borrowBuffers(from:)``).
    var machineBuffers = WebSocketStateMachine.InputBuffers()
    /// A frame a session builds whole (compressed, or for a TLS record, or a close) before the connection's queue
    /// copies it.
    var frame: [UInt8] = []

    /// The loop's scratch, made on first use. Loop thread only.
    static func of(_ loop: EventLoop) -> SessionScratch {
        if let scratch = loop.attachment as? SessionScratch { return scratch }
        let scratch = SessionScratch()
        loop.attachment = scratch
        return scratch
    }
}

@available(*, unavailable, message: "Session scratch belongs to one event loop")
extension SessionScratch: Sendable {}
