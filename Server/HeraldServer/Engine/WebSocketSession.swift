import HeraldBytes
import HeraldDeflate
import HeraldNet
import HeraldWebSocket
import Logging

/// One upgraded connection: the RFC 6455 state machine (``WebSocketConnection``) wired to a HeraldNet
/// ``Connection``, its delegate, and its timers (ping interval, idle timeout, close timeout).
///
/// Loop-confined: every method must be called on the session's loop thread (delegate callbacks are). Other
/// threads address a session through its ``handle`` and ``HeraldHTTPServer``.
///
/// ```swift
/// func sessionDidReceiveText(_ session: WebSocketSession, _ text: [UInt8]) {
///     session.sendText(text)                      // echo
/// }
/// ```
public final class WebSocketSession {
    /// The identity other threads may hold.
    public let handle: SessionHandle
    /// The request that was upgraded: method, target, path, query; its headers are not kept (the route's decision
    /// saw them), so an idle session holds no header list.
    public let request: HTTPRequestHead
    /// The subprotocol agreed in the handshake, if any.
    public let subprotocol: String?

    let connection: Connection
    private var protocolState: WebSocketConnection
    private var delegate: (any WebSocketSessionDelegate)?
    private let timing: SessionTiming
    private let logger: Logger
    /// Reused for every frame this session writes itself, so echoing allocates no output buffer per message.
    private var output: [UInt8] = []
    /// What the state machine writes while receiving (pongs, close replies), reused.
    private var protocolOutput: [UInt8] = []
    /// Events of one read, delivered after the state machine returns, because a delegate may send from its
    /// callback (and the state machine may not be re-entered).
    private var pendingEvents: [WebSocketEvent] = []
    /// We sent (or the state machine wrote) a close frame: no data frame may follow it (§5.5.1). Mirrors
    /// `protocolState.state != .open`, but is readable while the state machine is busy receiving.
    private var closeSent = false
    private var lastReadAt: Tick
    private var lastPingAt: Tick?
    private var closeSentAt: Tick?
    private var hasReportedClose = false
    /// When the credentials this session was opened with end (a token's `exp`); nil when they never do.
    private var credentialsEndAt: Tick?
    private var credentialsEndClose = (code: CloseCode.policyViolation, reason: "")
    /// See ``limitUnansweredRequests(to:)``; nil: unlimited.
    private var maxUnansweredRequests: Int?
    private var unansweredRequests = 0
    /// Bytes read while over the limit, parsed once answers catch up.
    private var heldInput: [UInt8] = []
    private var readingPaused = false
    /// permessage-deflate, when negotiated (RFC 7692): shared with the state machine, which inflates with it.
    private let compression: PerMessageDeflate?
    /// Reused buffer for a compressed outgoing payload.
    private var compressed: [UInt8] = []
    /// Server-wide counters and this loop's share of them (relaxed atomic adds, no lock).
    private let metrics: ServerMetrics?
    private let loopMetrics: ServerMetrics.LoopMetrics?

    init(connection: Connection, request: HTTPRequestHead, subprotocol: String?, limits: WebSocketLimits, timing: SessionTiming, logger: Logger,
         compression: PerMessageDeflate? = nil, metrics: ServerMetrics? = nil) {
        self.metrics = metrics
        self.loopMetrics = metrics?.loop(connection.loop.index)
        self.connection = connection
        self.handle = SessionHandle(connection.handle)
        self.request = request
        self.subprotocol = subprotocol
        self.protocolState = WebSocketConnection(role: .server, limits: limits, compression: compression)
        self.compression = compression
        self.timing = timing
        self.logger = logger
        self.lastReadAt = connection.loop.now
        connection.nextDeadline = nextTimerDeadline()
    }

    func attach(_ delegate: any WebSocketSessionDelegate) { self.delegate = delegate }

    // MARK: - API

    /// Whether messages can still be sent: the close handshake has not started and the socket is open.
    public var isOpen: Bool { !closeSent && connection.isOpen }

    /// The peer's address as "ip:port".
    public var remoteAddress: String { connection.remoteAddress }

    /// Sends one text message. `bytes` must be UTF-8 (the peer fails the connection otherwise, §8.1).
    public func sendText(_ bytes: [UInt8]) { sendMessage(.text, bytes) }

    /// Sends one binary message.
    public func sendBinary(_ bytes: [UInt8]) { sendMessage(.binary, bytes) }

    /// Queues a pre-encoded server frame (e.g. from `FrameEncoder.serverTextFrame`) by reference: no copy, so one
    /// encoding can go to many sessions. Dropped once the close handshake has started (§5.5.1).
    public func send(_ frame: SharedBytes) {
        guard !closeSent else { return }
        connection.write(frame)
    }

    /// True when fan-out frames go to this session exactly as encoded (no permessage-deflate), so a frame may be
    /// split into a per-session head and a shared body.
    var sendsPlainFrames: Bool { compression == nil }

    /// Queues a plain frame made of a small `head` (copied) followed by a shared `body` (by reference), as one unit:
    /// only for a session that ``sendsPlainFrames``. Dropped once the close handshake has started (§5.5.1).
    func send(head: UnsafeRawBufferPointer, body: SharedBytes) {
        guard !closeSent else { return }
        connection.write(head: head, body: body)
    }

    /// How this session takes fan-out frames: plain, deflated once per loop and configuration, or by itself.
    var outgoingCompression: OutgoingCompression {
        guard let compression else { return .none }
        guard let windowBits = compression.sharedCompressionWindowBits else { return .own }
        return .shared(windowBits: windowBits, options: compression.options)
    }

    /// Queues a fan-out frame (``HeraldHTTPServer/send(_:to:)``) in the form this session negotiated: `frame` must be
    /// the one ``FanOutFrame`` picked for ``outgoingCompression``; a session with its own compression context
    /// deflates the message itself.
    func send(_ fanOut: inout FanOutFrame, compressors: LoopCompressors) {
        guard !closeSent else { return }
        let compression = outgoingCompression
        if case .own = compression, let message = fanOut.message {
            return sendMessage(message.opcode, message.payload)
        }
        connection.write(fanOut.frame(for: compression, compressors: compressors))
    }

    /// Starts the close handshake (§7.1.2): sends a close frame with `code` and `reason`; the TCP connection is
    /// closed when the peer answers or after the close timeout.
    public func close(code: CloseCode, reason: String) {
        guard !closeSent, protocolState.state == .open else { return }
        closeSent = true
        metrics?.countClose(code: code.rawValue)
        output.removeAll(keepingCapacity: true)
        protocolState.close(code: code, reason: reason, into: &output)
        connection.write(output)
        closeSentAt = connection.loop.now
        connection.nextDeadline = connection.loop.now.adding(milliseconds: Int64(timing.closeTimeoutMs))
    }

    private func sendMessage(_ opcode: WebSocketOpcode, _ bytes: [UInt8]) {
        guard !closeSent else { return }
        output.removeAll(keepingCapacity: true)
        // Server frames are never masked (§5.1), so encoding needs nothing from the state machine.
        if let compression, bytes.withUnsafeBytes({ compression.compress($0, into: &compressed) }) {
            FrameEncoder.encodeServerFrame(opcode: opcode, payload: compressed, into: &output)
            output[0] |= 0x40  // RSV1: "Per-Message Compressed" (RFC 7692 §6)
            if compressed.capacity > 64 << 10 { compressed = [] }
        } else {
            FrameEncoder.encodeServerFrame(opcode: opcode, payload: bytes, into: &output)
        }
        loopMetrics?.framesOut.add(1)
        connection.write(output)
        shrinkOutputIfLarge()
    }

    /// A 1 MiB echo must not pin 1 MiB per idle session afterwards.
    private func shrinkOutputIfLarge() {
        if output.capacity > 64 << 10 { output = [] }
    }

    // MARK: - Driven by the connection handler

    /// Bytes from the peer (after the upgrade).
    ///
    /// Events are delivered in wire order, interleaved with what the protocol obliges us to send: a message that
    /// arrived before a bad frame is delivered (and may be echoed) before the close that the bad frame causes.
    func receive(_ bytes: UnsafeRawBufferPointer) {
        lastReadAt = connection.loop.now
        guard maxUnansweredRequests != nil else { return parse(bytes) }
        if readingPaused || !heldInput.isEmpty {
            heldInput.append(contentsOf: bytes)
            pauseReading()
            return
        }
        feedWithinLimit(bytes)
    }

    // MARK: - Requests in flight

    /// Bounds the requests this session may have read and not yet seen answered (``requestAnswered()``): past
    /// `limit`, or while more than ``resumeBelowQueuedBytes`` wait to be sent to the peer, the session stops reading.
    /// So a peer that pipelines a thousand large requests costs at most `limit` answers' worth of memory, and its own
    /// answers never pile up into a slow-consumer close. For routes whose every message gets exactly one answer.
    public func limitUnansweredRequests(to limit: Int) {
        maxUnansweredRequests = max(limit, 1)
    }

    /// One answer to this session's requests was queued: read on if the limits allow.
    func requestAnswered() {
        unansweredRequests = max(unansweredRequests - 1, 0)
        resumeIfAllowed()
    }

    /// Most bytes a session's queue may hold for it to read more requests.
    static let resumeBelowQueuedBytes = 256 << 10
    /// Input is parsed in slices this large while limited, so one read full of tiny requests overshoots the limit by
    /// at most a slice's worth.
    static let limitedSliceBytes = 512

    private var mustWait: Bool {
        guard let limit = maxUnansweredRequests else { return false }
        return unansweredRequests >= limit || connection.queuedBytes > Self.resumeBelowQueuedBytes
    }

    private func feedWithinLimit(_ bytes: UnsafeRawBufferPointer) {
        var offset = 0
        while offset < bytes.count {
            if mustWait {
                heldInput.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[offset...]))
                pauseReading()
                return
            }
            let end = min(offset + Self.limitedSliceBytes, bytes.count)
            parse(UnsafeRawBufferPointer(rebasing: bytes[offset..<end]))
            offset = end
            if protocolState.state == .closed || closeSent { return }
        }
    }

    private func pauseReading() {
        guard !readingPaused else { return }
        readingPaused = true
        connection.pauseReading()
        // A queue that drains says nothing: the timer looks again soon.
        connection.nextDeadline = nextTimerDeadline()
    }

    private func resumeIfAllowed() {
        guard readingPaused || !heldInput.isEmpty, !mustWait, connection.isOpen else { return }
        if !heldInput.isEmpty {
            let held = heldInput
            heldInput = []
            held.withUnsafeBytes { feedWithinLimit($0) }
            if !heldInput.isEmpty { return }
        }
        readingPaused = false
        connection.resumeReading()
        connection.nextDeadline = nextTimerDeadline()
    }

    /// The frames in `bytes`, delivered in wire order with what the protocol obliges us to send.
    private func parse(_ bytes: UnsafeRawBufferPointer) {
        protocolOutput.removeAll(keepingCapacity: true)
        pendingEvents.removeAll(keepingCapacity: true)
        protocolState.receive(bytes, output: &protocolOutput) { pendingEvents.append($0) }
        // The state machine writes at most one frame per event, before reporting it: a pong for a ping, a close for
        // .closed (the reply) or .failed. Walk both lists together so each frame goes out in its event's place.
        var written = 0
        for event in pendingEvents {
            switch event {
            case .ping: writeProtocolFrame(ifOpcode: .pong, from: &written)
            case .closed, .failed: writeProtocolFrame(ifOpcode: .close, from: &written)
            default: break
            }
            switch event {
            case .text(let text):
                loopMetrics?.messagesIn.add(1)
                if maxUnansweredRequests != nil { unansweredRequests += 1 }
                delegate?.sessionDidReceiveText(self, Array(text.utf8))
            case .binary(let bytes):
                loopMetrics?.messagesIn.add(1)
                if maxUnansweredRequests != nil { unansweredRequests += 1 }
                delegate?.sessionDidReceiveBinary(self, bytes)
            case .ping, .pong:
                loopMetrics?.controlFramesIn.add(1)  // the pong is already written; any byte counts as liveness (lastReadAt).
            case .closed(let code, _):
                loopMetrics?.controlFramesIn.add(1)
                closeSent = true
                logger.debug("websocket closed by peer", metadata: ["conn": "\(handle)", "code": "\(code.map { "\($0)" } ?? "none")"])
            case .failed(let error):
                metrics?.countClose(code: error.closeCode.rawValue)
                closeSent = true
                logger.debug("websocket failed", metadata: ["conn": "\(handle)", "error": "\(error)"])
            }
        }
        if protocolOutput.count > written {
            protocolOutput.withUnsafeBytes { connection.write(UnsafeRawBufferPointer(rebasing: $0[written...])) }
        }
        pendingEvents.removeAll(keepingCapacity: true)
        shrinkOutputIfLarge()
        if protocolOutput.capacity > 64 << 10 { protocolOutput = [] }
        // §7.1.1: after the close handshake (or a failure, §7.1.7) the server closes the TCP connection.
        if protocolState.state == .closed {
            closeSent = true
            connection.close(afterFlush: true)
        }
    }

    /// Writes the server frame at `offset` in `protocolOutput` if it has `opcode`, and advances `offset` past it.
    private func writeProtocolFrame(ifOpcode opcode: WebSocketOpcode, from offset: inout Int) {
        let available = protocolOutput.count - offset
        guard available >= 2, protocolOutput[offset] & 0x0F == opcode.rawValue else { return }
        // Control frames carry at most 125 bytes (§5.5), so the 7-bit length is the whole story.
        let end = offset + 2 + Int(protocolOutput[offset + 1] & 0x7F)
        guard end <= protocolOutput.count else { return }
        protocolOutput.withUnsafeBytes { connection.write(UnsafeRawBufferPointer(rebasing: $0[offset..<end])) }
        offset = end
    }

    /// Closes the session with `code` at `deadline` unless it ended before: a connection must not outlive the token
    /// that opened it (a ping-kept connection otherwise would, for as long as the client stays).
    public func endCredentials(at deadline: Tick, code: CloseCode, reason: String) {
        credentialsEndAt = deadline
        credentialsEndClose = (code, reason)
        connection.nextDeadline = nextTimerDeadline()
    }

    /// The loop's sweep reached this session's deadline.
    func timerTick(now: Tick) {
        if readingPaused { resumeIfAllowed() }
        if let sent = closeSentAt {
            // The peer never answered our close: give up on the handshake (it sees 1006). An earlier wake-up (the
            // paused-reading recheck) keeps the deadline.
            if now.milliseconds(since: sent) >= Int64(timing.closeTimeoutMs) {
                connection.close(afterFlush: false)
                connection.nextDeadline = nil
            } else {
                connection.nextDeadline = nextTimerDeadline()
            }
            return
        }
        if let end = credentialsEndAt, now >= end {
            logger.info("websocket credentials ended", metadata: ["conn": "\(handle)"])
            close(code: credentialsEndClose.code, reason: credentialsEndClose.reason)
            connection.close(afterFlush: true)
            return
        }
        if timing.idleTimeoutMs > 0, now.milliseconds(since: lastReadAt) >= Int64(timing.idleTimeoutMs) {
            logger.debug("websocket idle timeout", metadata: ["conn": "\(handle)"])
            close(code: .goingAway, reason: "idle timeout")
            connection.close(afterFlush: true)
            connection.nextDeadline = nil
            return
        }
        if timing.pingIntervalMs > 0 {
            let quietSince = max(lastReadAt, lastPingAt ?? lastReadAt)
            if now.milliseconds(since: quietSince) >= Int64(timing.pingIntervalMs) {
                output.removeAll(keepingCapacity: true)
                if !closeSent, protocolState.sendPing([], into: &output) { connection.write(output) }
                lastPingAt = now
            }
        }
        connection.nextDeadline = nextTimerDeadline()
    }

    /// The earliest of the next ping, the idle limit and the end of the credentials; nil when none applies.
    private func nextTimerDeadline() -> Tick? {
        // Once our close is out, only its timeout matters.
        if let sent = closeSentAt { return sent.adding(milliseconds: Int64(timing.closeTimeoutMs)) }
        var deadline = credentialsEndAt
        if readingPaused {
            let recheck = connection.loop.now.adding(milliseconds: 20)
            deadline = deadline.map { min($0, recheck) } ?? recheck
        }
        if timing.idleTimeoutMs > 0 {
            let idle = lastReadAt.adding(milliseconds: Int64(timing.idleTimeoutMs))
            deadline = deadline.map { min($0, idle) } ?? idle
        }
        if timing.pingIntervalMs > 0 {
            let ping = max(lastReadAt, lastPingAt ?? lastReadAt).adding(milliseconds: Int64(timing.pingIntervalMs))
            deadline = deadline.map { min($0, ping) } ?? ping
        }
        return deadline
    }

    /// The server is shutting down: close 1001 to the client (§7.4.1), then close TCP once it is flushed.
    func shutDown() {
        close(code: .goingAway, reason: "server shutting down")
        connection.close(afterFlush: true)
    }

    /// The TCP connection is gone; tell the delegate once and let it go.
    func transportDidClose() {
        closeSent = true
        protocolState.abandon()
        guard !hasReportedClose else { return }
        hasReportedClose = true
        let delegate = self.delegate
        self.delegate = nil
        delegate?.sessionDidClose(self)
    }
}

@available(*, unavailable, message: "A WebSocket session is confined to its event loop; pass its SessionHandle instead")
extension WebSocketSession: Sendable {}

/// The timers of a session, in milliseconds (0 disables ping or idle).
struct SessionTiming: Sendable {
    var pingIntervalMs: Int
    var idleTimeoutMs: Int
    /// How long to wait for the peer's close after ours before dropping TCP.
    var closeTimeoutMs: Int
}
