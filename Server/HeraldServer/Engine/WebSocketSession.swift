import HeraldBytes
import HeraldDeflate
import HeraldNet
import HeraldWebSocket
import Logging

/// One upgraded connection: a server-role ``WebSocketStateMachine`` wired to a HeraldNet ``Connection`` and its
/// delegate. The machine decides (framing, replies, keep-alive deadlines); the session carries out its actions and
/// adds what only the server has: flow control on unanswered requests, metrics and logs.
///
/// Loop-confined: every method must be called on the session's loop thread (delegate callbacks are). Other
/// threads address a session through its ``handle`` and ``HeraldHTTPServer``.
///
/// ```swift
/// func sessionDidReceiveText(_ session: WebSocketSession, _ text: UnsafeRawBufferPointer) {
///     session.sendText(text)                      // echo
/// }
/// ```
public final class WebSocketSession {
    // One session per open WebSocket: what it keeps is what an idle connection costs. Nothing derivable is stored
    // twice (the handle and this loop's metrics come from the connection), and the flags fill the padding the
    // machine ends with.

    // Nothing of the upgrade request is kept, not even its path: the route's decision saw it all and chose the
    // delegate and subprotocol, so an idle session holds no header list, no query, no path.

    let connection: Connection
    private var machine: WebSocketStateMachine
    /// A close frame has been written (or the transport is gone): no data frame may follow it (§5.5.1). Follows the
    /// machine's actions as they are carried out, since the machine's state is already past the whole read: a
    /// message delivered before a bad frame may still be answered.
    private var closeWritten = false {
        didSet { connection.takesSharedFrames = sendsPlainFrames && !closeWritten }
    }
    private var hasReportedClose = false
    private var readingPaused = false
    /// The machine was fed input since it last held none (``settleInputCharge()``): only ``parse(_:readAt:)`` moves it
    /// off a message boundary, where it keeps buffers; whole messages taken straight from a read leave it as it was,
    /// so a session that only gets those never asks it (a copy of the machine per read).
    private var machineMayHoldInput = false
    /// The machine's actions are being carried out: input that an answer lets through meanwhile waits for the end.
    private var carryingOut = false
    private var answeredWhileCarryingOut = false
    /// The connection counts against its address's per-IP limits; released when it closes.
    let isAdmitted: Bool
    private var delegate: (any WebSocketSessionDelegate)?
    /// The server's limits, logger, counters and per-IP admission, shared by every connection.
    let context: EngineContext
    /// permessage-deflate, when negotiated (RFC 7692): the machine inflates and deflates with it.
    private let compression: PerMessageDeflate?
    /// Bytes read while over the limit, parsed once answers catch up (boxed: few sessions ever hold any).
    private var held: HeldInput?
    /// See ``limitUnansweredRequests(to:)``; 0: unlimited.
    private var requestLimit: Int32 = 0
    private var unansweredRequests: Int32 = 0
    /// The user whose input budget this session charges besides the server's (a /sync session's); nil: only the
    /// server's. Released when the session closes.
    private var share: UserShare?
    /// Bytes this session has charged to the input budgets (``settleInputCharge()``).
    private var inputCharge = 0
    /// Bytes of large requests delivered and not yet answered (see ``chargedRequestBytes``).
    private var backlogCharge = 0

    /// Where this session was upgraded, for logs: its delegate's route, or just "websocket" once the delegate is gone.
    var route: String { delegate?.route ?? "websocket" }

    /// The identity other threads may hold.
    public var handle: SessionHandle { connection.handle }

    /// The loop's shared buffers: the machine borrows them for each input, and the frames this session must build
    /// whole (compressed or TLS messages, closes) are encoded in them, so no buffer is allocated per message and an
    /// idle session keeps none. Looked up, not stored: 8 bytes less in every session for one cast per read.
    private var scratch: SessionScratch { SessionScratch.of(connection.loop) }

    /// This loop's share of the counters.
    private var loopMetrics: ServerMetrics.LoopMetrics { context.metrics.loop(connection.loop.index) }
    private var metrics: ServerMetrics { context.metrics }
    private var logger: Logger { context.logger }

    init(connection: Connection, context: EngineContext, compression: PerMessageDeflate?,
         isAdmitted: Bool) {
        self.context = context
        self.isAdmitted = isAdmitted
        self.connection = connection
        self.machine = WebSocketStateMachine(role: .server, limits: context.limits, compression: compression, keepAlive: context.keepAlive,
                                             now: connection.loop.now.milliseconds)
        self.compression = compression
        connection.nextDeadline = timerDeadline()
        // A fan-out frame goes to this connection exactly as encoded until the close (§5.5.1: no data after it).
        connection.takesSharedFrames = sendsPlainFrames
    }

    func attach(_ delegate: any WebSocketSessionDelegate) { self.delegate = delegate }

    // MARK: - API

    /// Whether messages can still be sent: the close handshake has not started and the socket is open.
    public var isOpen: Bool { !closeWritten && connection.isOpen }

    /// The peer's address as "ip:port".
    public var remoteAddress: String { connection.remoteAddress }

    /// Sends one text message. `bytes` must be UTF-8 (the peer fails the connection otherwise, §8.1).
    public func sendText(_ bytes: [UInt8]) { bytes.withUnsafeBytes { sendText($0) } }

    /// Sends one text message from borrowed bytes (copied into the queue before this returns).
    public func sendText(_ bytes: UnsafeRawBufferPointer) { sendMessage(.text, bytes) }

    /// Sends one binary message.
    public func sendBinary(_ bytes: [UInt8]) { bytes.withUnsafeBytes { sendBinary($0) } }

    /// Sends one binary message from borrowed bytes (copied into the queue before this returns).
    public func sendBinary(_ bytes: UnsafeRawBufferPointer) { sendMessage(.binary, bytes) }

    /// Queues a pre-encoded server frame (e.g. from `FrameEncoder.serverTextFrame`) by reference: no copy, so one
    /// encoding can go to many sessions. Dropped once the close handshake has started (§5.5.1).
    public func send(_ frame: SharedBytes) {
        guard !closeWritten else { return }
        connection.write(frame)
    }

    /// Queues a frame pinned by this session's loop, as `send(_: SharedBytes)` does, for a fan-out on that loop.
    func send(_ pinned: LoopPinnedFrame) {
        guard !closeWritten else { return }
        connection.write(pinned)
    }

    /// True when fan-out frames go to this session exactly as encoded (no permessage-deflate), so a frame may be
    /// split into a per-session head and a shared body.
    var sendsPlainFrames: Bool { compression == nil }

    /// How this session takes fan-out frames: plain, deflated once per loop and configuration, or by itself.
    var outgoingCompression: OutgoingCompression {
        guard let compression else { return .none }
        guard let windowBits = compression.sharedCompressionWindowBits else { return .own }
        return .shared(windowBits: windowBits, options: compression.options)
    }

    /// Queues a fan-out frame (``HeraldHTTPServer/send(messages:)``) in the form this session negotiated: plain, the
    /// frame's shared compressed form, or (with its own compression context) deflated by the session itself.
    func send(_ fanOut: inout FanOutFrame) {
        guard !closeWritten else { return }
        let compression = outgoingCompression
        let plain = fanOut.plain
        if case .own = compression, plain.isWholeUncompressedMessage {
            return plain.withPayload { sendMessage(plain.opcode, $0) }
        }
        connection.write(fanOut.frame(for: compression))
    }

    /// Starts the close handshake (§7.1.2): sends a close frame with `code` and `reason`; the TCP connection is
    /// closed when the peer answers or after the close timeout.
    public func close(code: CloseCode, reason: String) {
        guard !closeWritten else { return }
        let scratch = self.scratch
        scratch.frame.removeAll(keepingCapacity: true)
        guard machine.close(code: code, reason: reason, now: connection.loop.now.milliseconds, into: &scratch.frame) else { return }
        closeWritten = true
        metrics.countClose(code: code.rawValue)
        connection.write(scratch.frame)
        connection.nextDeadline = timerDeadline()
    }

    private func sendMessage(_ opcode: WebSocketOpcode, _ payload: UnsafeRawBufferPointer) {
        guard !closeWritten else { return }
        loopMetrics.framesOut.addAsSoleWriter(1)
        if compression == nil, !connection.isTLS {
            // A plain frame is its header and the payload unchanged: the header is written on the stack and both go
            // straight into the connection's queue, so an echo copies the payload once.
            if payload.count <= 125 {
                // Up to 125 bytes the header is two bytes (§5.2): FIN with the opcode, then the length (no mask, §5.1).
                var head = (UInt16(0x80 | opcode.rawValue) | UInt16(payload.count) << 8).littleEndian
                withUnsafeBytes(of: &head) { connection.write(head: $0, payload: payload) }
                return
            }
            withUnsafeTemporaryAllocation(byteCount: FrameEncoder.maxHeaderSize, alignment: 1) { header in
                let size = FrameEncoder.writeHeader(opcode: opcode, payloadLength: payload.count, into: header)
                connection.write(head: UnsafeRawBufferPointer(rebasing: header[..<size]), payload: payload)
            }
            return
        }
        let scratch = self.scratch
        scratch.frame.removeAll(keepingCapacity: true)
        machine.encodeMessage(opcode, payload: payload, into: &scratch.frame)
        connection.write(scratch.frame)
        // A 1 MiB echo must not pin 1 MiB on the loop afterwards.
        if scratch.frame.capacity > 64 << 10 { scratch.frame = [] }
    }

    // MARK: - Driven by the connection handler

    /// Bytes from the peer (after the upgrade).
    ///
    /// Events are delivered in wire order, interleaved with what the protocol obliges us to send: a message that
    /// arrived before a bad frame is delivered (and may be echoed) before the close that the bad frame causes.
    func receive(_ bytes: UnsafeRawBufferPointer) {
        let now = connection.loop.now.milliseconds
        if requestLimit == 0 {
            parse(bytes, readAt: now)
        } else {
            machine.noteRead(at: now)
            if readingPaused || held != nil || carryingOut { hold(bytes, readAt: now) } else { feedWithinLimit(bytes, readAt: now) }
        }
        settleInputCharge()
    }

    private func hold(_ bytes: UnsafeRawBufferPointer, readAt: Int64) {
        if let held {
            held.bytes.append(contentsOf: bytes)
            held.readAt = readAt
        } else {
            held = HeldInput(bytes: Array(bytes), readAt: readAt)
        }
        pauseReading()
    }

    // MARK: - Requests in flight

    /// Bounds the requests this session may have read and not yet seen answered (``requestAnswered()``): past
    /// `limit`, or while more than ``resumeBelowQueuedBytes`` wait to be sent to the peer, the session stops reading.
    /// So a peer that pipelines a thousand large requests costs at most `limit` answers' worth of memory, and its own
    /// answers never pile up into a slow-consumer close. For routes whose every message gets exactly one answer.
    public func limitUnansweredRequests(to limit: Int) {
        requestLimit = Int32(clamping: max(limit, 1))
    }

    /// One answer to this session's requests was queued: read on if the limits allow.
    func requestAnswered() {
        // Answers come in request order, but only large requests were charged: each answer gives back an even share of
        // what is charged, so the charge is 0 whenever nothing is unanswered, and never grows while requests flow.
        if backlogCharge > 0 { backlogCharge -= backlogCharge / Int(max(unansweredRequests, 1)) }
        unansweredRequests = max(unansweredRequests - 1, 0)
        // An answer given from inside a delivery: the held input is fed once the current actions are carried out.
        if carryingOut { answeredWhileCarryingOut = true } else { resumeIfAllowed() }
        settleInputCharge()
    }

    /// Most bytes a session's queue may hold for it to read more requests.
    static let resumeBelowQueuedBytes = 256 << 10
    /// Input is parsed in slices this large while limited, so one read full of tiny requests overshoots the limit by
    /// at most a slice's worth.
    static let limitedSliceBytes = 512

    /// A session always may have one request in flight (so it always makes progress); more wait while an input budget
    /// is spent, so pipelined requests cannot hold more memory than the budgets allow.
    private var mustWait: Bool {
        guard requestLimit > 0 else { return false }
        if unansweredRequests >= requestLimit || connection.queuedBytes > Self.resumeBelowQueuedBytes { return true }
        return unansweredRequests > 0 && (context.inputBudget.isOver || share?.input.isOver == true)
    }

    private func feedWithinLimit(_ bytes: UnsafeRawBufferPointer, readAt: Int64) {
        var offset = 0
        while offset < bytes.count {
            if mustWait {
                hold(UnsafeRawBufferPointer(rebasing: bytes[offset...]), readAt: readAt)
                return
            }
            let end = min(offset + Self.limitedSliceBytes, bytes.count)
            parse(UnsafeRawBufferPointer(rebasing: bytes[offset..<end]), readAt: readAt)
            offset = end
            if machine.state == .closed || closeWritten { return }
        }
    }

    private func pauseReading() {
        guard !readingPaused else { return }
        readingPaused = true
        connection.pauseReading()
        // A queue that drains says nothing: the timer looks again soon.
        connection.nextDeadline = timerDeadline()
    }

    private func resumeIfAllowed() {
        guard readingPaused || held != nil, !mustWait, connection.isOpen else { return }
        if let input = held {
            held = nil
            input.bytes.withUnsafeBytes { feedWithinLimit($0, readAt: input.readAt) }
            // Some of it went over the limit again and is held anew.
            if held != nil { return }
        }
        readingPaused = false
        connection.resumeReading()
        connection.nextDeadline = timerDeadline()
    }

    /// The frames in `bytes`, read at `readAt`: the machine's actions carried out in wire order.
    /// The machine works in the loop's buffers and gives them back after (unless a frame is left half read).
    private func parse(_ bytes: UnsafeRawBufferPointer, readAt: Int64) {
        let offset = compression == nil ? deliverWholeMessages(bytes, readAt: readAt) : 0
        guard offset < bytes.count else { return resumeIfAnsweredMeanwhile() }
        let rest = UnsafeRawBufferPointer(rebasing: bytes[offset...])
        let scratch = self.scratch
        machineMayHoldInput = true
        machine.borrowBuffers(from: &scratch.machineBuffers)
        machine.receive(rest, now: readAt)
        carryOutActions()
        machine.returnBuffers(to: &scratch.machineBuffers)
    }

    /// Largest message taken straight from the read: unmasked on the stack, so no buffer is shared or allocated.
    static let wholeMessageLimit = 1024

    /// Delivers the whole small messages at the start of `bytes`
    /// (``WebSocketStateMachine/wholeMessage(in:at:maxPayload:)``) without the machine's reassembly and action list, and
    /// returns where the rest begins: the machine takes it from there (a partial or control frame, a larger message, a
    /// text that is not UTF-8, or anything after a close).
    private func deliverWholeMessages(_ bytes: UnsafeRawBufferPointer, readAt: Int64) -> Int {
        var offset = 0
        // Lent uncounted to the closure below: whoever hands this session a read holds it for the whole call, and a
        // counted capture cost a retain and a release per message.
        let session = Unmanaged.passUnretained(self)
        // A read that ends where its last message ends (nearly every one) is done without another look at the machine.
        while offset < bytes.count, let frame = machine.wholeMessage(in: bytes, at: offset, maxPayload: Self.wholeMessageLimit), !closeWritten {
            let first = offset == 0
            let delivered = withUnsafeTemporaryAllocation(byteCount: frame.payload.count, alignment: 1) { message in
                session._withUnsafeGuaranteedRef { $0.deliverWhole(frame, from: bytes, into: message, readAt: first ? readAt : nil) }
            }
            guard delivered else { break }
            offset = frame.end
        }
        return offset
    }

    /// One whole message of ``deliverWholeMessages(_:readAt:)``, unmasked into `message`; false, delivering nothing,
    /// when it is a text that is not UTF-8 (the machine then takes the frame and fails it with 1007, §8.1).
    private func deliverWhole(_ frame: WholeMessageFrame, from bytes: UnsafeRawBufferPointer, into message: UnsafeMutableRawBufferPointer,
                              readAt: Int64?) -> Bool {
        // ASCII (as the unmasking copy tells, word by word) is UTF-8; anything else gets the full check.
        let ascii = frame.unmask(from: bytes, into: message)
        let payload = UnsafeRawBufferPointer(message)
        guard ascii || frame.opcode != .text || UTF8Validator.isValid(payload) else { return false }
        if let readAt { machine.noteRead(at: readAt) }
        carryingOut = true
        deliver(frame.opcode, payload)
        carryingOut = false
        return true
    }

    /// Input held back while a delivery answered a request is fed after the whole current input, never inside it.
    private func resumeIfAnsweredMeanwhile() {
        guard answeredWhileCarryingOut else { return }
        answeredWhileCarryingOut = false
        resumeIfAllowed()
    }

    /// One message to the delegate, lent for the call.
    private func deliver(_ opcode: WebSocketOpcode, _ message: UnsafeRawBufferPointer) {
        loopMetrics.messagesIn.addAsSoleWriter(1)
        if requestLimit > 0, unansweredRequests < .max {
            unansweredRequests += 1
            // The delegate keeps a copy until the request is answered (the sync thread's backlog).
            if message.count >= Self.chargedRequestBytes { backlogCharge += message.count }
        }
        if opcode == .text { delegate?.sessionDidReceiveText(self, message) } else { delegate?.sessionDidReceiveBinary(self, message) }
    }

    // MARK: - Input budgets

    /// Requests this large or larger count against the input budgets until they are answered; smaller ones are bounded
    /// by their number (``limitUnansweredRequests(to:)``) and never touch a shared counter.
    static let chargedRequestBytes = 4 << 10

    /// Makes this session charge `share`'s input budget too (a /sync session: its user's), until it closes.
    func chargeInput(to share: UserShare) {
        self.share = share
    }

    /// Brings the input budgets up to date with what this session holds now: its machine's buffers while a message is
    /// unfinished, input held back while reading is paused, and large requests not yet answered. Most reads change
    /// none of it (0 before and after) and return at the first comparison.
    ///
    /// An unfinished message that grows while a budget is spent is refused: the connection is failed with 1008
    /// (RFC 6455 §7.4.1, a message that violates the server's policy) and its buffers go at once. Unless the session
    /// has requests in flight: then it stops reading (``mustWait``) until answers give the budget back, so a client
    /// that pipelines is slowed down, not cut off, and its unfinished message cannot grow meanwhile.
    @inline(__always)
    private func settleInputCharge() {
        // Nothing held and nothing charged, before and after (every read of a request/response session that keeps up):
        // decided here, in the caller, without a call.
        if !machineMayHoldInput, held == nil, backlogCharge == 0, inputCharge == 0 { return }
        settleHeldInputCharge()
    }

    private func settleHeldInputCharge() {
        // Once closed, the session has given everything back (``releaseInputCharge()``) and charges nothing again.
        guard !hasReportedClose else { return }
        var unfinished = 0
        if machineMayHoldInput {
            unfinished = machine.retainedBytes
            machineMayHoldInput = unfinished > 0
        }
        let charge = unfinished + (held?.bytes.capacity ?? 0) + backlogCharge
        guard charge != inputCharge else { return }
        let delta = charge - inputCharge
        inputCharge = charge
        let serverOver = context.inputBudget.charge(delta)
        let userOver = share?.input.charge(delta) ?? false
        guard delta > 0, unfinished > 0, serverOver || userOver, !closeWritten, requestLimit == 0 || unansweredRequests == 0 else { return }
        refuseUnfinishedInput(userOver: userOver)
    }

    private func refuseUnfinishedInput(userOver: Bool) {
        let budget = userOver ? share?.input : context.inputBudget
        context.warnings.warn(.inputBudget, "closed a connection whose unfinished messages went over the input budget",
                              metadata: ["peer": "\(connection.remoteAddress)", "route": "\(route)", "budget": "\(userOver ? "user" : "server")",
                                         "limit": "\(budget?.limit ?? 0)", "user": "\(userOver ? share?.user ?? "-" : "-")"])
        held = nil
        let scratch = self.scratch
        machine.borrowBuffers(from: &scratch.machineBuffers)
        machine.fail(WebSocketProtocolError(closeCode: .policyViolation, reason: "unfinished messages over the input budget"),
                     now: connection.loop.now.milliseconds)
        carryOutActions()
        machine.returnBuffers(to: &scratch.machineBuffers)
        settleInputCharge()
    }

    /// Gives back everything this session charged (it closed).
    private func releaseInputCharge() {
        held = nil
        backlogCharge = 0
        if inputCharge != 0 {
            _ = context.inputBudget.charge(-inputCharge)
            _ = share?.input.charge(-inputCharge)
            inputCharge = 0
        }
        if let share {
            self.share = nil
            context.userShares.release(share)
        }
    }

    /// Closes the session with `code` at `deadline` unless it ended before: a connection must not outlive the token
    /// that opened it (a ping-kept connection otherwise would, for as long as the client stays).
    public func endCredentials(at deadline: Tick, code: CloseCode, reason: String) {
        machine.scheduleClose(at: deadline.milliseconds, code: code, reason: reason)
        connection.nextDeadline = timerDeadline()
    }

    /// The loop's sweep reached this session's deadline.
    func timerTick(now: Tick) {
        if readingPaused { resumeIfAllowed() }
        let scratch = self.scratch
        machine.borrowBuffers(from: &scratch.machineBuffers)
        machine.timerFired(now: now.milliseconds)
        carryOutActions()
        machine.returnBuffers(to: &scratch.machineBuffers)
        settleInputCharge()
    }

    /// Does what the machine's last input asks, in order. A delegate may send or close from a delivery: those frames
    /// go out in their place, before the frames of later actions.
    private func carryOutActions() {
        carryingOut = true
        // One reference to the list for the whole walk: what a delegate may call meanwhile (send, close) writes into
        // the session's own buffer and leaves the list alone, so this never copies it.
        let actions = machine.actions
        for action in actions {
            switch action {
            case .deliver(let opcode, let range):
                // The delegate may send or close, which changes the machine: it reads its own reference to the
                // receive buffer (any change meanwhile copies it), so the message is lent without a copy.
                let received = machine.received
                received.withUnsafeBytes { deliver(opcode, UnsafeRawBufferPointer(rebasing: $0[range])) }
            case .write(let range):
                machine.outgoing.withUnsafeBytes { connection.write(UnsafeRawBufferPointer(rebasing: $0[range])) }
            case .receivedPing, .receivedPong:
                loopMetrics.controlFramesIn.add(1)  // the pong is already written; any byte counts as liveness.
            case .peerClosed(let code, _):
                loopMetrics.controlFramesIn.add(1)
                closeWritten = true
                logger.debug("websocket closed by peer", metadata: ["conn": "\(handle)", "code": "\(code.map { "\($0)" } ?? "none")"])
            case .failed(let error):
                metrics.countClose(code: error.closeCode.rawValue)
                closeWritten = true
                logger.debug("websocket failed", metadata: ["conn": "\(handle)", "error": "\(error)"])
            case .closeStarted(let code, let cause):
                closeWritten = true
                metrics.countClose(code: code.rawValue)
                switch cause {
                case .scheduled: logger.info("websocket credentials ended", metadata: ["conn": "\(handle)"])
                case .idleTimeout: logger.debug("websocket idle timeout", metadata: ["conn": "\(handle)"])
                case .pongTimeout: logger.debug("websocket pong timeout", metadata: ["conn": "\(handle)"])
                }
            case .closeTransport(let afterFlush):
                // §7.1.1: after the close handshake (or a failure, §7.1.7) the server closes the TCP connection.
                closeWritten = true
                connection.close(afterFlush: afterFlush)
            case .setTimer(let deadline):
                connection.nextDeadline = timerDeadline(deadline)
            }
        }
        carryingOut = false
        resumeIfAnsweredMeanwhile()
    }

    /// The machine's next deadline, or sooner while reading is paused (a queue that drains says nothing, so the
    /// timer looks again in 20 ms); once our close is out, only the machine's close timeout counts.
    private func timerDeadline(_ machineDeadline: Int64?? = nil) -> Tick? {
        let deadline = (machineDeadline ?? machine.nextDeadline).map(Tick.init(milliseconds:))
        guard readingPaused, machine.closeSentAt == nil else { return deadline }
        let recheck = connection.loop.now.adding(milliseconds: 20)
        return deadline.map { min($0, recheck) } ?? recheck
    }

    /// The server is shutting down: close 1001 to the client (§7.4.1), then close TCP once it is flushed.
    func shutDown() {
        close(code: .goingAway, reason: "server shutting down")
        connection.close(afterFlush: true)
    }

    /// The TCP connection is gone; tell the delegate once and let it go.
    func transportDidClose() {
        closeWritten = true
        machine.abandon()
        releaseInputCharge()
        guard !hasReportedClose else { return }
        hasReportedClose = true
        let delegate = self.delegate
        self.delegate = nil
        delegate?.sessionDidClose(self)
    }
}

@available(*, unavailable, message: "A WebSocket session is confined to its event loop; pass its SessionHandle instead")
extension WebSocketSession: Sendable {}

/// What a session read while over its limit of unanswered requests, and when it read the last of it.
private final class HeldInput {
    var bytes: [UInt8]
    var readAt: Int64

    init(bytes: [UInt8], readAt: Int64) {
        self.bytes = bytes
        self.readAt = readAt
    }
}
