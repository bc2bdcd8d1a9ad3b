/// One thing the transport must do, or learn, after ``WebSocketStateMachine`` took an input (received bytes or the
/// clock). The actions of one input are listed in wire order in ``WebSocketStateMachine/actions``: a message that
/// arrived before a bad frame is delivered before the close the bad frame causes.
///
/// Byte ranges point into the machine's reused buffers, so the list itself never holds a copy of a payload: message,
/// ping, pong and close-reason bytes into ``WebSocketStateMachine/received``, bytes to send into
/// ``WebSocketStateMachine/outgoing``. Both stay valid until the machine's next input.
public enum WebSocketAction: Sendable, Hashable {
    /// A complete data message (§5.6): `.text` (already validated as UTF-8, §8.1) or `.binary`, at `bytes` in
    /// ``WebSocketStateMachine/received``.
    case deliver(WebSocketOpcode, bytes: Range<Int>)
    /// Write ``WebSocketStateMachine/outgoing`` at `bytes` to the peer: a pong, a close reply, the close that fails the
    /// connection, a keep-alive ping or a close the clock started.
    case write(bytes: Range<Int>)
    /// A ping arrived, payload at `payload` in ``WebSocketStateMachine/received``; its pong, if one is due (§5.5.2),
    /// is the `write` just before.
    case receivedPing(payload: Range<Int>)
    /// A pong arrived, solicited or not (§5.5.3).
    case receivedPong(payload: Range<Int>)
    /// The close handshake finished: the peer's close arrived (our reply, if due, is the `write` just before) or the
    /// peer answered ours. `code` is nil when the close frame had none (reported as 1005, §7.1.5); the reason's UTF-8
    /// is at `reason` in ``WebSocketStateMachine/received``. A ``closeTransport(afterFlush:)`` follows.
    case peerClosed(code: CloseCode?, reason: Range<Int>)
    /// The peer violated the protocol; the close frame with the error's code (unless ours was already out) is the
    /// `write` just before, and a ``closeTransport(afterFlush:)`` follows (§7.1.7).
    case failed(WebSocketProtocolError)
    /// The clock started the close handshake (the `write` just before carries the close frame): see the cause.
    case closeStarted(CloseCode, cause: WebSocketCloseCause)
    /// Close the TCP connection: after the queued bytes are flushed, or at once (the close handshake timed out, the
    /// peer sees 1006, §7.1.5).
    case closeTransport(afterFlush: Bool)
    /// Wake the machine (``WebSocketStateMachine/timerFired(now:)``) at this time on the monotonic clock, in
    /// milliseconds; nil: no timer is needed.
    case setTimer(at: Int64?)
}

/// Why the machine itself started a close handshake (``WebSocketAction/closeStarted(_:cause:)``).
public enum WebSocketCloseCause: Sendable, Hashable {
    /// Nothing was read for ``WebSocketKeepAlive/idleTimeoutMs`` (closes 1001 "idle timeout").
    case idleTimeout
    /// Our ping went unanswered, and nothing else was read, for ``WebSocketKeepAlive/pongTimeoutMs``.
    case pongTimeout
    /// The close scheduled with ``WebSocketStateMachine/scheduleClose(at:code:reason:)`` came due.
    case scheduled
}
