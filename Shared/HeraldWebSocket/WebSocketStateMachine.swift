/// One open WebSocket connection's protocol state machine, for either role, with no IO (RFC 6455 §5-§8).
///
/// Inputs are received bytes (``receive(_:now:)``, in any chunking) and the clock (``timerFired(now:)``); each input
/// replaces ``actions`` with what the transport must do, in order: deliver a message, write bytes, close the transport,
/// set the timer. The keep-alive deadlines (ping, pong, idle, close handshake, a scheduled close) live here, so client
/// and server keep a connection alive the same way. Calls the application makes (send, ``close(code:reason:now:into:)``)
/// append frames to the caller's buffer instead and never touch ``actions``, so they may be made while the actions of
/// an input are being carried out (an echo sends from inside a delivery).
///
/// ```swift
/// var machine = WebSocketStateMachine(role: .server)
/// machine.receive(readBuffer, now: clock.milliseconds())
/// for action in machine.actions {
///     switch action {
///     case .deliver(let opcode, let range): handle(opcode, machine.received[range])
///     case .write(let range): transport.write(machine.outgoing[range])
///     case .closeTransport(let afterFlush): transport.close(afterFlush: afterFlush)
///     case .setTimer(let deadline): timer = deadline
///     default: break
///     }
/// }
/// ```
///
/// Payloads stay bytes end to end: a message is accumulated in one reused buffer, unmasked and validated as it
/// arrives (a bad byte fails the connection at once), and delivered as a range of ``received``. Nothing is allocated
/// per message once the buffers have grown. The type is confined to the event loop that owns the connection and is
/// deliberately not `Sendable`.
public struct WebSocketStateMachine {
    // Every open connection holds one machine, so its stored properties are ordered to pack: the one-byte ones
    // first, together, then the words. Values derived from others (the limits, the header of the frame whose payload
    // is arriving) are read from the parser instead of being kept twice.

    /// The connection's state; see ``WebSocketConnectionState``.
    public private(set) var state: WebSocketConnectionState = .open
    /// Our role.
    public let role: WebSocketRole
    /// The data message being received, if any: its opcode (.text or .binary).
    private(set) var messageOpcode: WebSocketOpcode?
    /// Whether the data message being received had RSV1 set on its first frame (RFC 7692 §6).
    private var messageIsCompressed = false
    /// The clock closed the transport (idle or pong timeout): no timer is needed any more.
    private var timersStopped = false
    /// Validates text messages incrementally, across frames.
    private var utf8 = UTF8Validator()

    /// The keep-alive deadlines in force.
    public let keepAlive: WebSocketKeepAlive

    /// What the last input asks of the transport, in order; replaced by each ``receive(_:now:)`` and
    /// ``timerFired(now:)``. Its capacity is kept, so a steady connection allocates no list per input.
    public internal(set) var actions: [WebSocketAction] = []
    /// The messages and control payloads the last input delivered; ``WebSocketAction`` ranges point here.
    public internal(set) var received: [UInt8] = []
    /// The bytes the last input asks to write; ``WebSocketAction/write(bytes:)`` ranges point here.
    public internal(set) var outgoing: [UInt8] = []

    private(set) var parser: FrameParser
    /// The reassembly buffer for data messages, reused across messages (swapped with ``received`` when that is empty,
    /// so the common one-message read copies nothing).
    var messageBuffer: [UInt8] = []
    /// The payload of the control frame being received (at most 125 bytes, §5.5), reused; allocated by the first
    /// control frame, not up front, since most connections never receive one.
    var controlBuffer: [UInt8] = []
    /// The negotiated per-message compression extension (RFC 7692), if any; it alone makes RSV1 legal.
    private let compression: (any PerMessageCompression)?
    /// Reused buffer for unmasked compressed input and for compressed output.
    var compressionScratch: [UInt8] = []

    // Keep-alive state, in milliseconds on the monotonic clock. `Self.never` stands for "not yet" (an optional
    // Int64 takes 16 bytes, this 8).
    private var lastReadAt: Int64
    private var lastPingAtOrNever = Self.never
    private var closeSentAtOrNever = Self.never
    /// A close asked for later (``scheduleClose(at:code:reason:)``), which few connections ever have: boxed, so the
    /// rest keep 8 bytes for it instead of 40.
    private var scheduledClose: ScheduledClose?

    private final class ScheduledClose: Sendable {
        let at: Int64
        let code: CloseCode
        let reason: String

        init(at: Int64, code: CloseCode, reason: String) {
            self.at = at
            self.code = code
            self.reason = reason
        }
    }

    private static let never = Int64.min

    /// The limits enforced on incoming frames and messages.
    public var limits: WebSocketLimits { parser.limits }

    /// When our close frame went out (by ``close(code:reason:now:into:)``, the clock, or in answer to the peer's close
    /// or a failure of its input); nil before. The close timeout counts from it.
    public private(set) var closeSentAt: Int64? {
        get { closeSentAtOrNever == Self.never ? nil : closeSentAtOrNever }
        set { closeSentAtOrNever = newValue ?? Self.never }
    }

    /// When we last sent a ping; nil before the first.
    private var lastPingAt: Int64? {
        get { lastPingAtOrNever == Self.never ? nil : lastPingAtOrNever }
        set { lastPingAtOrNever = newValue ?? Self.never }
    }

    /// Creates the state machine for a connection whose opening handshake has completed.
    ///
    /// - Parameters:
    ///   - role: `.server` requires masked frames in; `.client` masks every frame out (§5.1).
    ///   - limits: frame and message size limits; exceeding them fails the connection with 1009. With compression,
    ///     `maxMessageSize` bounds the decompressed message.
    ///   - compression: the per-message compression extension negotiated in the handshake (RFC 7692), or `nil`.
    ///     Only with one is RSV1 accepted, and only on the first frame of a data message.
    ///   - keepAlive: the deadlines to keep; ``WebSocketKeepAlive/off`` by default.
    ///   - now: the time the connection opened (milliseconds, monotonic): the deadlines count from it.
    public init(role: WebSocketRole, limits: WebSocketLimits = .default, compression: (any PerMessageCompression)? = nil,
                keepAlive: WebSocketKeepAlive = .off, now: Int64 = 0) {
        self.role = role
        self.compression = compression
        self.keepAlive = keepAlive
        self.lastReadAt = now
        self.parser = FrameParser(role: role, limits: limits, allowedReservedBits: compression == nil ? 0 : 0b100)
    }

    // MARK: - Receiving

    /// Feeds bytes read at `now` from the transport, in any chunking, and replaces ``actions``.
    public mutating func receive(_ bytes: UnsafeRawBufferPointer, now: Int64) {
        beginInput()
        noteRead(at: now)
        // §7.1.1/§1.4: after the close handshake (or a failure) nothing more is processed.
        guard state != .closed else { return }
        defer { if state == .closed { closedByInput(at: now) } }
        var cursor = 0
        while state != .closed {
            switch parser.next(bytes, cursor: &cursor) {
            case .needMore:
                return
            case .header(let header):
                if let error = beginFrame(header) { return fail(error) }
            case .payload(let chunk, let offset):
                if let error = appendPayload(chunk, offset: offset) { return fail(error) }
            case .frameEnd(let header):
                if let error = endFrame(header) { return fail(error) }
            case .failed(let error):
                return fail(error)
            }
        }
    }

    /// Feeds bytes from an array; see ``receive(_:now:)``.
    public mutating func receive(_ bytes: [UInt8], now: Int64) {
        bytes.withUnsafeBytes { receive($0, now: now) }
    }

    /// Records that the transport read from the peer at `now` bytes it holds back for later (flow control): any
    /// byte read is a sign of life for the idle and pong deadlines.
    public mutating func noteRead(at now: Int64) {
        lastReadAt = max(lastReadAt, now)
    }

    /// Clears the previous input's actions and buffers, keeping their capacity (a large message's buffer is let go).
    private mutating func beginInput() {
        // Most inputs leave some of these empty; skipping those skips a uniqueness check each (echo pays per read).
        if !actions.isEmpty { actions.removeAll(keepingCapacity: true) }
        if received.capacity > 64 << 10 { received = [] } else if !received.isEmpty { received.removeAll(keepingCapacity: true) }
        if outgoing.capacity > 64 << 10 { outgoing = [] } else if !outgoing.isEmpty { outgoing.removeAll(keepingCapacity: true) }
    }

    private mutating func beginFrame(_ header: FrameHeader) -> WebSocketProtocolError? {
        if header.reservedBits & 0b100 != 0 {
            // RFC 7692 §6: RSV1 marks a compressed message on its first frame only; §6.1: control frames are never
            // compressed. (Without a negotiated extension the parser has already failed the frame, RFC 6455 §5.2.)
            if header.opcode.isControl { return .protocolError("RSV1 set on a \(header.opcode) frame") }
            if header.opcode == .continuation { return .protocolError("RSV1 set on a continuation frame") }
        }
        if header.opcode.isControl {
            controlBuffer.removeAll(keepingCapacity: true)
            return nil
        }
        // The parser has already enforced §5.4 framing and the size limits at the header; this only tracks which
        // kind of message is being reassembled.
        if header.opcode != .continuation {
            messageOpcode = header.opcode
            if !messageBuffer.isEmpty { messageBuffer.removeAll(keepingCapacity: true) }
            utf8 = UTF8Validator()
            messageIsCompressed = compression != nil && header.reservedBits & 0b100 != 0
        }
        // Reserve for a message's first frame only (later frames grow the array geometrically), and at most
        // 64 KiB: a peer that announces a large frame and trickles bytes must not pin the whole allowance up front.
        if messageBuffer.isEmpty { messageBuffer.reserveCapacity(min(header.payloadLength, 64 << 10)) }
        return nil
    }

    private mutating func appendPayload(_ chunk: UnsafeRawBufferPointer, offset: Int) -> WebSocketProtocolError? {
        guard let header = parser.currentHeader else { return nil }
        if header.opcode.isControl {
            let start = controlBuffer.count
            controlBuffer.append(contentsOf: chunk)
            if let key = header.maskKey { Masking.apply(key, to: &controlBuffer, range: start..<controlBuffer.count, phase: offset) }
            return nil
        }
        let start = messageBuffer.count
        if messageIsCompressed, let compression {
            compressionScratch.removeAll(keepingCapacity: true)
            compressionScratch.append(contentsOf: chunk)
            if let key = header.maskKey { Masking.apply(key, to: &compressionScratch, range: 0..<compressionScratch.count, phase: offset) }
            let failed = compressionScratch.withUnsafeBytes {
                compression.decompress($0, appendingTo: &messageBuffer, limit: limits.maxMessageSize)
            }
            return validateInflated(from: start, failed)
        }
        messageBuffer.append(contentsOf: chunk)
        if let key = header.maskKey { Masking.apply(key, to: &messageBuffer, range: start..<messageBuffer.count, phase: offset) }
        return validateText(from: start)
    }

    /// Checks what the extension inflated since `start`, then reports the extension's own failure, if any.
    ///
    /// Invalid UTF-8 within the size limit is 1007 even when the same call also passed the limit (1009) or hit
    /// corrupt data: otherwise the close code would depend on how the payload was chunked (a larger read reaches the
    /// limit before the bad byte is looked at). The byte past the limit is not part of the message and not checked.
    private mutating func validateInflated(from start: Int, _ failed: WebSocketProtocolError?) -> WebSocketProtocolError? {
        guard let failed else { return validateText(from: start) }
        return validateText(from: start, upTo: min(messageBuffer.count, limits.maxMessageSize)) ?? failed
    }

    /// Runs the incremental UTF-8 check over the text message bytes appended since `start` (up to `end`).
    private mutating func validateText(from start: Int, upTo end: Int? = nil) -> WebSocketProtocolError? {
        let end = end ?? messageBuffer.count
        if messageOpcode == .text, start < end {
            let failed = messageBuffer.withUnsafeBytes { utf8.validate(UnsafeRawBufferPointer(rebasing: $0[start..<end])) }
            // §8.1: invalid UTF-8 in a text message MUST fail the connection (1007, §7.4.1).
            if failed != nil { return .invalidPayload("invalid UTF-8 in text message") }
        }
        return nil
    }

    private mutating func endFrame(_ header: FrameHeader) -> WebSocketProtocolError? {
        switch header.opcode {
        case .ping:
            // §5.5.2: answer a ping with a pong carrying the same payload, unless we already sent close.
            if state == .open { writeControl(.pong, controlBuffer) }
            actions.append(.receivedPing(payload: keepReceived(controlBuffer)))
        case .pong:
            actions.append(.receivedPong(payload: keepReceived(controlBuffer)))
        case .close:
            return receivedClose()
        default:
            guard header.fin, let opcode = messageOpcode else { return nil }
            if messageIsCompressed, let compression {
                // RFC 7692 §7.2.2: the compressed payload ends with an implied 00 00 FF FF, fed by the extension.
                let start = messageBuffer.count
                let finished = compression.finishMessage(appendingTo: &messageBuffer, limit: limits.maxMessageSize)
                if let failed = validateInflated(from: start, finished) { return failed }
                messageIsCompressed = false
            }
            messageOpcode = nil
            // §8.1: a text message that ends inside a UTF-8 sequence is invalid.
            if opcode == .text, !utf8.isAtCharacterBoundary { return .invalidPayload("text message ends inside a UTF-8 sequence") }
            actions.append(.deliver(opcode, bytes: deliverMessage()))
        }
        return nil
    }

    /// Moves the complete message into ``received`` and returns where it is; the reassembly buffer is then empty.
    private mutating func deliverMessage() -> Range<Int> {
        if received.isEmpty {
            // The usual read: one message. Swapping the buffers hands it over without a copy (and leaves the
            // reassembly buffer with the empty one).
            swap(&received, &messageBuffer)
            return 0..<received.count
        }
        let range = keepReceived(messageBuffer)
        messageBuffer.removeAll(keepingCapacity: true)
        return range
    }

    /// Appends `bytes` to ``received`` and returns where they are.
    private mutating func keepReceived(_ bytes: [UInt8]) -> Range<Int> {
        let start = received.count
        received.append(contentsOf: bytes)
        return start..<received.count
    }

    private mutating func receivedClose() -> WebSocketProtocolError? {
        var code: CloseCode?
        var reason = 0..<0
        switch controlBuffer.count {
        case 0:
            break  // §7.1.5: no status code; reported as 1005 (here nil).
        case 1:
            // §5.5.1: if there is a body, its first two bytes MUST be a status code.
            return .protocolError("close frame with a 1-byte payload")
        default:
            let received = CloseCode(rawValue: UInt16(controlBuffer[0]) << 8 | UInt16(controlBuffer[1]))
            // §7.4: a code that may not appear on the wire is a protocol error.
            guard received.isValidOnWire else { return .protocolError("invalid close code \(received.rawValue)") }
            // §5.5.1: the close reason is UTF-8; invalid data is 1007 (§8.1).
            let valid = controlBuffer.withUnsafeBytes { UTF8Validator.isValid(UnsafeRawBufferPointer(rebasing: $0[2...])) }
            guard valid else { return .invalidPayload("invalid UTF-8 in close reason") }
            code = received
            let start = self.received.count
            self.received.append(contentsOf: controlBuffer[2...])
            reason = start..<self.received.count
        }
        if state == .open {
            // §5.5.1: an endpoint that receives a close and has not sent one MUST reply with a close, typically
            // echoing the status code it received.
            writeControl(.close, FrameEncoder.closePayload(code: code, reason: ""))
        }
        state = .closed
        releaseBuffers()
        actions.append(.peerClosed(code: code, reason: reason))
        // §7.1.1: once the handshake is done the TCP connection is closed (by the server first, §7.1.1; a client
        // whose reply is out has nothing more to wait for either).
        actions.append(.closeTransport(afterFlush: true))
        return nil
    }

    private mutating func fail(_ error: WebSocketProtocolError) {
        // §7.1.7: to fail the connection, send a close with the reason code (unless one was already sent, §5.5.1),
        // then close the transport. Status code only, so the bytes are e.g. 88 02 03 EA for 1002 from a server.
        if state == .open { writeControl(.close, FrameEncoder.closePayload(code: error.closeCode, reason: "")) }
        state = .closed
        releaseBuffers()
        actions.append(.failed(error))
        actions.append(.closeTransport(afterFlush: true))
    }

    /// The peer's close was answered, or its input failed the connection: our close is out (unless it went before)
    /// and the transport closes once its queue is flushed. The close timeout bounds that flush as it bounds a
    /// handshake we start, so a peer that stops reading cannot hold the connection and its queued output for ever.
    private mutating func closedByInput(at now: Int64) {
        if closeSentAt == nil { closeSentAt = now }
        actions.append(.setTimer(at: nextDeadline))
    }

    private mutating func releaseBuffers() {
        messageBuffer = []
        controlBuffer = []
        compressionScratch = []
        messageOpcode = nil
        messageIsCompressed = false
    }

    /// Writes a control frame into ``outgoing`` and lists it.
    private mutating func writeControl(_ opcode: WebSocketOpcode, _ payload: [UInt8]) {
        let start = outgoing.count
        writeFrame(opcode, payload, fin: true, into: &outgoing)
        actions.append(.write(bytes: start..<outgoing.count))
    }

    // MARK: - The clock

    /// When ``timerFired(now:)`` should next run; nil when no deadline applies. Reads only ever move deadlines later,
    /// so ``receive(_:now:)`` leaves the timer as it is: a wake-up that comes early re-arms it.
    public var nextDeadline: Int64? {
        if timersStopped { return nil }
        // Once our close is out, only its timeout matters.
        if let sent = closeSentAt { return keepAlive.closeTimeoutMs.map { sent &+ $0 } }
        var deadline = scheduledClose?.at
        func consider(_ time: Int64) { deadline = deadline.map { min($0, time) } ?? time }
        if keepAlive.idleTimeoutMs > 0 { consider(lastReadAt &+ keepAlive.idleTimeoutMs) }
        if keepAlive.pingIntervalMs > 0 { consider(max(lastReadAt, lastPingAt ?? lastReadAt) &+ keepAlive.pingIntervalMs) }
        if keepAlive.pongTimeoutMs > 0, let pinged = awaitedPing { consider(pinged &+ keepAlive.pongTimeoutMs) }
        return deadline
    }

    /// Our last ping, when nothing has been read since it.
    private var awaitedPing: Int64? {
        guard let pinged = lastPingAt, pinged >= lastReadAt else { return nil }
        return pinged
    }

    /// The timer set from ``nextDeadline`` (or a ``WebSocketAction/setTimer(at:)``) went off: replaces ``actions``
    /// with what is due at `now` (a ping, a close, dropping the transport), ending with the timer to set next.
    public mutating func timerFired(now: Int64) {
        beginInput()
        defer { actions.append(.setTimer(at: nextDeadline)) }
        if let sent = closeSentAt {
            // The peer never answered our close: give up on the handshake (it sees 1006). An early wake-up keeps
            // the deadline.
            if let timeout = keepAlive.closeTimeoutMs, now &- sent >= timeout {
                actions.append(.closeTransport(afterFlush: false))
                timersStopped = true
            }
            return
        }
        if let scheduled = scheduledClose, now >= scheduled.at {
            startClose(scheduled.code, reason: scheduled.reason, cause: .scheduled, now: now)
            return
        }
        if keepAlive.idleTimeoutMs > 0, now &- lastReadAt >= keepAlive.idleTimeoutMs {
            startClose(.goingAway, reason: "idle timeout", cause: .idleTimeout, now: now)
            return
        }
        if keepAlive.pongTimeoutMs > 0, let pinged = awaitedPing, now &- pinged >= keepAlive.pongTimeoutMs {
            startClose(.goingAway, reason: "no pong", cause: .pongTimeout, now: now)
            return
        }
        if keepAlive.pingIntervalMs > 0, now &- max(lastReadAt, lastPingAt ?? lastReadAt) >= keepAlive.pingIntervalMs {
            // §5.5.2: a ping asks for a pong; with an empty payload (nothing to match, any read is proof of life).
            if state == .open { writeControl(.ping, []) }
            lastPingAt = now
        }
    }

    /// The clock's close: the close frame (if still open), then the transport closes once it is flushed; the close
    /// timeout (the next deadline) drops it unflushed if the peer does not read the queue by then.
    private mutating func startClose(_ code: CloseCode, reason: String, cause: WebSocketCloseCause, now: Int64) {
        if state == .open {
            writeControl(.close, FrameEncoder.closePayload(code: code, reason: reason))
            state = .closing
            closeSentAt = now
            actions.append(.closeStarted(code, cause: cause))
        }
        actions.append(.closeTransport(afterFlush: true))
    }

    /// Closes with `code` and `reason` at `deadline` unless the connection ended before (e.g. when the credentials it
    /// was opened with expire). The next ``timerFired(now:)`` at or after `deadline` starts the close handshake and
    /// closes the transport once the close frame is flushed; read ``nextDeadline`` to re-arm the timer.
    public mutating func scheduleClose(at deadline: Int64, code: CloseCode, reason: String) {
        // A new box each time, never changed: copies of the machine stay independent.
        scheduledClose = ScheduledClose(at: deadline, code: code, reason: reason)
    }

    // MARK: - Sending (called by the application; frames go into the caller's buffer)

    /// Appends a text message frame. Returns `false` (and appends nothing) once we have sent close (§5.5.1).
    @discardableResult
    public mutating func sendText(_ text: String, into output: inout [UInt8]) -> Bool {
        guard state == .open else { return false }
        var text = text
        text.withUTF8 { writeMessage(.text, UnsafeRawBufferPointer($0), into: &output) }
        return true
    }

    /// Appends a binary message frame. Returns `false` (and appends nothing) once we have sent close (§5.5.1).
    @discardableResult
    public mutating func sendBinary(_ bytes: [UInt8], into output: inout [UInt8]) -> Bool {
        guard state == .open else { return false }
        bytes.withUnsafeBytes { writeMessage(.binary, $0, into: &output) }
        return true
    }

    /// Appends a whole text or binary message as one frame, compressed (RSV1) when an extension was negotiated and
    /// chooses to. Returns `false` (and appends nothing) for other opcodes or once we have sent close (§5.5.1).
    /// For text, `payload` must be UTF-8 (the peer fails the connection otherwise, §8.1).
    @discardableResult
    public mutating func sendMessage(_ opcode: WebSocketOpcode, payload: UnsafeRawBufferPointer, into output: inout [UInt8]) -> Bool {
        guard state == .open, opcode == .text || opcode == .binary else { return false }
        writeMessage(opcode, payload, into: &output)
        return true
    }

    /// Appends one data frame, for senders that fragment messages themselves (§5.4): the first frame has opcode
    /// `.text` or `.binary`, later ones `.continuation`, and the last has `fin` set.
    /// Returns `false` (and appends nothing) for a control opcode or once we have sent close.
    @discardableResult
    public mutating func sendFrame(opcode: WebSocketOpcode, payload: [UInt8], fin: Bool, into output: inout [UInt8]) -> Bool {
        guard state == .open, opcode.isDefined, !opcode.isControl else { return false }
        writeFrame(opcode, payload, fin: fin, into: &output)
        return true
    }

    /// Appends a ping. Returns `false` (and appends nothing) if the payload exceeds 125 bytes (§5.5) or the
    /// connection is no longer open.
    @discardableResult
    public mutating func sendPing(_ payload: [UInt8], into output: inout [UInt8]) -> Bool {
        guard state == .open, payload.count <= 125 else { return false }
        writeFrame(.ping, payload, fin: true, into: &output)
        return true
    }

    /// Appends an unsolicited pong, e.g. as a heartbeat (§5.5.3). Same limits as ``sendPing(_:into:)``.
    @discardableResult
    public mutating func sendPong(_ payload: [UInt8], into output: inout [UInt8]) -> Bool {
        guard state == .open, payload.count <= 125 else { return false }
        writeFrame(.pong, payload, fin: true, into: &output)
        return true
    }

    /// Starts the close handshake (§7.1.2): appends a close frame, moves to ``WebSocketConnectionState/closing`` and
    /// starts the close timeout (``WebSocketKeepAlive/closeTimeoutMs``) at `now`; read ``nextDeadline`` to re-arm.
    ///
    /// The reason is truncated at a character boundary to fit 123 bytes; a code that may not be sent (1005, 1006)
    /// produces a close frame without a body. Returns `false` (and does nothing) unless the connection is open.
    @discardableResult
    public mutating func close(code: CloseCode, reason: String, now: Int64 = 0, into output: inout [UInt8]) -> Bool {
        guard state == .open else { return false }
        writeFrame(.close, FrameEncoder.closePayload(code: code, reason: reason), fin: true, into: &output)
        state = .closing
        closeSentAt = now
        return true
    }

    /// Fails the connection for a reason of the transport's rather than the peer's framing (e.g. its unfinished input
    /// is over a memory budget): replaces ``actions`` with the close frame carrying `error`'s code (§7.1.7), the
    /// failure and closing the transport, and lets go of every partial frame and message at once. Does nothing once
    /// the input has closed the connection.
    public mutating func fail(_ error: WebSocketProtocolError, now: Int64) {
        beginInput()
        guard state != .closed else { return }
        fail(error)
        closedByInput(at: now)
    }

    /// Marks the connection closed without sending anything, e.g. when the TCP connection dropped or a close
    /// timeout expired (the peer's view is then 1006, §7.1.5).
    public mutating func abandon() {
        state = .closed
        timersStopped = true
        releaseBuffers()
    }

    /// Appends a whole data message as one frame, like ``sendMessage(_:payload:into:)`` but whatever the state: for a
    /// transport carrying out this machine's actions, which knows from them whether its close has gone out yet. (The
    /// state is already past the whole input while its actions are carried out: a message delivered before a bad
    /// frame may still be answered before the close that frame causes.)
    public mutating func encodeMessage(_ opcode: WebSocketOpcode, payload: UnsafeRawBufferPointer, into output: inout [UInt8]) {
        writeMessage(opcode, payload, into: &output)
    }

    /// Writes a whole data message as one frame, compressed with RSV1 set when the extension chooses to (RFC 7692 §6).
    private mutating func writeMessage(_ opcode: WebSocketOpcode, _ payload: UnsafeRawBufferPointer, into output: inout [UInt8]) {
        guard let compression, compression.compress(payload, into: &compressionScratch) else {
            return writeFrame(opcode, payload, fin: true, into: &output)
        }
        compressionScratch.withUnsafeBytes { writeFrame(opcode, $0, fin: true, compressed: true, into: &output) }
        if compressionScratch.capacity > 64 << 10 { compressionScratch = [] }  // a 1 MiB message must not pin 1 MiB
    }

    private func writeFrame(_ opcode: WebSocketOpcode, _ payload: [UInt8], fin: Bool, into output: inout [UInt8]) {
        payload.withUnsafeBytes { writeFrame(opcode, $0, fin: fin, into: &output) }
    }

    private func writeFrame(_ opcode: WebSocketOpcode, _ payload: UnsafeRawBufferPointer, fin: Bool, compressed: Bool = false,
                            into output: inout [UInt8]) {
        switch role {
        case .server:
            FrameEncoder.encodeServerFrame(opcode: opcode, payload: payload, fin: fin, compressed: compressed, into: &output)
        case .client:
            // §5.3: a fresh, unpredictable masking key for every frame.
            FrameEncoder.encodeClientFrame(opcode: opcode, payload: payload, maskKey: MaskKey.random().bytes, fin: fin,
                                           compressed: compressed, into: &output)
        }
    }
}

@available(*, unavailable, message: "A WebSocket connection is confined to the event loop that owns it")
extension WebSocketStateMachine: Sendable {}
