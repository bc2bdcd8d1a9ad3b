import CLinux
import Glibc
import HeraldBytes

/// One accepted TCP connection, owned by one loop and used only on that loop's thread.
///
/// Writes only queue: the loop sends every connection's queue with one `sendmsg` just before it next waits;
/// what a handler writes while it is handed this connection's input is sent with one `send` when it returns (the reply
/// cork, ``EventLoop``'s `corking`). `close` only marks: the descriptor is closed after the current batch of events, so
/// no descriptor number is reused inside a batch and nothing is freed under a running callback.
public final class Connection {
    /// Where the connection lives; every handler call arrives on this loop's thread.
    public let loop: EventLoop
    /// Identity that other threads may keep and pass to `LoopGroup.send(_:to:)`.
    public let handle: ConnectionHandle
    /// The peer as "ip:port" ("[ip]:port" for IPv6).
    public let remoteAddress: String
    // Every open connection holds one of these: the one-byte properties follow `nextDeadline` and fill its padding,
    // and the descriptor is read from the handle rather than kept twice.

    /// When the loop's timer sweep should call `connectionTimerTick`; nil means never.
    public var nextDeadline: Tick?
    /// The connection was closed by the slow-consumer rule (its queue would have passed
    /// `ServerConfig.maxQueuedBytesPerConnection`), so its handler can say so in `connectionDidClose`; this layer
    /// only counts it (``LoopCounters/slowConsumerCloses``) and has no logger.
    public private(set) var closedAsSlowConsumer = false
    var state = State.open
    /// On the loop's pending-write list already (avoids duplicates).
    var isPendingWrite = false
    /// Its last read filled the loop's buffer, so the socket may hold more than epoll will report again (the loop's
    /// list of connections to read again without an event).
    var mayHaveMoreInput = false
    /// Interest registered with epoll.
    var wantsRead = true
    var wantsWritable = false
    private var queueCapLifted = false
    /// Set by the protocol layer while a fan-out may queue frames on this connection exactly as they were encoded for
    /// everyone (a WebSocket without per-connection compression that has not sent its close): the fan-out then writes
    /// without asking the protocol layer. False by default.
    public var takesSharedFrames = false
    /// A slot for whatever the protocol layer wants to hang on the connection; cleared after close.
    public var userData: AnyObject?

    /// Lifecycle: open → (closingAfterFlush) → closing (queued for close) → closed.
    enum State { case open, closingAfterFlush, closing, closed }

    /// Open, or sending what it owes before it closes: the loop still writes it, ticks it and may close it.
    var isOpenOrDraining: Bool { state == .open || state == .closingAfterFlush }

    let binding: ServerBinding
    /// The TLS filter between socket and handler on a TLS listener; nil for plain TCP.
    @usableFromInline let tls: TLSTransport?
    var handler: (any ConnectionHandler)?
    var output = WriteQueue()
    /// Position in the loop's dense list of live connections (for O(1) removal).
    var liveIndex = 0

    var fd: Int32 { handle.fd }

    init(loop: EventLoop, handle: ConnectionHandle, remoteAddress: String, binding: ServerBinding, tls: TLSTransport? = nil) {
        self.loop = loop
        self.handle = handle
        self.remoteAddress = remoteAddress
        self.binding = binding
        self.tls = tls
    }

    /// Whether the connection is TLS (the handler still reads and writes plaintext).
    /// Inlinable: a session asks for every message it sends.
    @inlinable public var isTLS: Bool { tls != nil }

    /// Bytes queued and not yet accepted by the kernel.
    public var queuedBytes: Int { output.count + loop.corkedBytes(of: self) }

    /// The slow-consumer bound: a write that would queue more than this closes the connection instead.
    public var maxQueuedBytes: Int { binding.config.maxQueuedBytesPerConnection }

    /// True until `close` is called or the peer goes away; writes are accepted only while open.
    public var isOpen: Bool { state == .open }

    /// Queues a copy of `bytes`. Meant for small per-connection output (responses, pongs).
    public func write(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { write($0) }
    }

    /// Queues a copy of `bytes` (on TLS, their encryption).
    public func write(_ bytes: UnsafeRawBufferPointer) {
        queue(byteCount: bytes.count) { tls in
            loop.encrypt(bytes, on: self, tls)
        } corked: { destination in
            Self.copy(bytes, to: destination)
        } plain: {
            output.append(bytes)
        }
    }

    /// Queues copies of `head` and then `payload`, back to back and as one unit for the slow-consumer rule: a frame
    /// whose header was written on the stack goes into the queue without being assembled first. On TLS each part is
    /// encrypted as it comes (two records), so a TLS sender is better served by one whole frame.
    public func write(head: UnsafeRawBufferPointer, payload: UnsafeRawBufferPointer) {
        queue(byteCount: head.count + payload.count) { tls in
            if head.count > 0 { loop.encrypt(head, on: self, tls) }
            if payload.count > 0 { loop.encrypt(payload, on: self, tls) }
        } corked: { destination in
            Self.copy(head, then: payload, to: destination)
        } plain: {
            output.append(head: head, payload: payload)
        }
    }

    /// Queues a reference to `frame`: no copy, however many connections it goes to. On TLS the frame is
    /// encrypted into this connection's queue instead (each connection has its own keys).
    public func write(_ frame: SharedBytes) {
        queue(byteCount: frame.count) { tls in
            frame.withUnsafeBytes { loop.encrypt($0, on: self, tls) }
        } corked: { destination in
            frame.withUnsafeBytes { Self.copy($0, to: destination) }
        } plain: {
            output.append(frame)
        }
    }

    /// Queues a frame pinned by this loop (``LoopPinnedFrame``) by reference, as `write(_: SharedBytes)` does: for a
    /// fan-out, whose receivers then count no reference each. `pinned` must have been made on this connection's loop.
    public func write(_ pinned: LoopPinnedFrame) {
        queue(byteCount: pinned.count) { tls in
            pinned.frame.withUnsafeBytes { loop.encrypt($0, on: self, tls) }
        } corked: { destination in
            pinned.frame.withUnsafeBytes { Self.copy($0, to: destination) }
        } plain: {
            output.append(pinned)
        }
    }

    /// Queues a copy of the small `head` followed by the frame `pinned` by this loop (``LoopPinnedFrame``), as one unit
    /// for the slow-consumer rule (never half of it): a message whose first bytes differ per receiver (a WebSocket
    /// header and a /sync `seq`) and whose rest is shared by all of them, so the receivers count no reference each.
    /// `inline` is the same head made to be kept in the queue's chunk (nil when it does not fit): made once for all
    /// receivers with this head. The write queue sends both together; on TLS both are encrypted into this
    /// connection's queue (two records). `pinned` must have been made on this connection's loop.
    public func write(head: UnsafeRawBufferPointer, inline: InlineBytes?, pinned: LoopPinnedFrame) {
        queue(byteCount: head.count + pinned.count) { tls in
            if head.count > 0 { loop.encrypt(head, on: self, tls) }
            if pinned.count > 0 { pinned.frame.withUnsafeBytes { loop.encrypt($0, on: self, tls) } }
        } corked: { destination in
            pinned.frame.withUnsafeBytes { Self.copy(head, then: $0, to: destination) }
        } plain: {
            if let inline { output.append(inline) } else { output.append(head) }
            output.append(pinned)
        }
    }

    /// The rule every write follows: nothing once closing or for nothing; `byteCount` bytes admitted whole by the
    /// slow-consumer rule or not at all (the connection then closes); on TLS encrypted into the queue; while the loop
    /// is handling this connection's input, copied into the loop's reply cork if they fit (`copy` gets the place),
    /// otherwise queued as they are (after what the cork held) and the connection put on the loop's list to flush.
    @inline(__always)
    private func queue(
        byteCount: Int, tls encrypt: (TLSTransport) -> Void, corked copy: (UnsafeMutableRawPointer) -> Void,
        plain append: () -> Void
    ) {
        guard state == .open, byteCount > 0, admit(byteCount) else { return }
        if let tls {
            encrypt(tls)
            return
        }
        if loop.isCorking(self) {
            if let destination = loop.reserveCork(byteCount) {
                copy(destination)
                return
            }
            loop.uncork(self, keep: true)
        }
        append()
        loop.scheduleWrite(self)
    }

    /// Copies `first` and then `second` to `destination` (room the reply cork reserved for both); either may be empty.
    @inline(__always)
    private static func copy(
        _ first: UnsafeRawBufferPointer, then second: UnsafeRawBufferPointer = UnsafeRawBufferPointer(start: nil, count: 0),
        to destination: UnsafeMutableRawPointer
    ) {
        if let base = first.baseAddress, first.count > 0 { destination.copyMemory(from: base, byteCount: first.count) }
        if let base = second.baseAddress, second.count > 0 { (destination + first.count).copyMemory(from: base, byteCount: second.count) }
    }

    /// Gives the connection to another handler from here on: after a protocol upgrade, the HTTP handler gives way to
    /// the WebSocket session, so an open WebSocket costs no object in between. The new handler then owes everything
    /// `connectionDidClose` does. No-op once the connection is closed.
    public func replaceHandler(with handler: any ConnectionHandler) {
        guard state != .closed else { return }
        self.handler = handler
    }

    /// Closes the connection. With `afterFlush`, queued output is sent first (reads stop at once);
    /// otherwise queued output is dropped. Either way the descriptor is closed after the current batch
    /// and the handler then sees `connectionDidClose`. Calling it again is harmless. A graceful close of a TLS
    /// connection sends close_notify first.
    public func close(afterFlush: Bool) {
        switch state {
        case .open, .closingAfterFlush:
            loop.uncork(self, keep: afterFlush)  // what the reply cork holds goes with the queue, or not at all
            if afterFlush, state == .open, let tls { loop.sendCloseNotify(on: self, tls) }
            if afterFlush, !output.isEmpty {
                if state == .open {
                    state = .closingAfterFlush
                    loop.stopReading(self)
                    loop.scheduleWrite(self)
                }
            } else {
                loop.scheduleClose(self)
            }
        case .closing, .closed:
            return
        }
    }

    /// Stops reading from the socket until ``resumeReading()``: what the peer sends waits in the kernel, and TCP's
    /// own flow control slows the peer down (the way to bound work a peer has asked for but not yet received).
    public func pauseReading() {
        guard state == .open else { return }
        loop.stopReading(self)
    }

    /// Reads again after ``pauseReading()``; no-op once the connection is closing.
    public func resumeReading() {
        guard state == .open, !wantsRead else { return }
        wantsRead = true
        loop.updateInterest(of: self)
    }

    /// Queues whatever `write` does inside `body` past the slow-consumer cap. For output the peer itself asked for and
    /// whose amount the caller bounds some other way (answers to a bounded number of requests in flight): a peer
    /// must not be closed as slow for what it requested, however large.
    public func writingBeyondQueueCap(_ body: () -> Void) {
        let outer = queueCapLifted
        queueCapLifted = true
        body()
        queueCapLifted = outer
    }

    /// The slow-consumer rule: a queue that would pass the cap closes the connection instead of growing.
    private func admit(_ byteCount: Int) -> Bool {
        if queueCapLifted || queuedBytes + byteCount <= binding.config.maxQueuedBytesPerConnection { return true }
        if state == .open {
            loop.counters.didCloseSlowConsumer()
            closedAsSlowConsumer = true
        }
        loop.scheduleClose(self)
        return false
    }
}

/// Connections are confined to their loop's thread; Swift 6 must refuse to send them elsewhere.
/// Other threads use `ConnectionHandle`.
@available(*, unavailable)
extension Connection: Sendable {}
