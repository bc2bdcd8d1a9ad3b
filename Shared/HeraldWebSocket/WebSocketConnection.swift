/// One open WebSocket connection's protocol state machine, for either role, with no IO (RFC 6455 §5-§8).
///
/// Received bytes go in through ``receive(_:output:onEvent:)`` in any chunking; complete messages and control
/// events come out in order through `onEvent`, and everything the protocol obliges us to send (pongs, the close
/// reply, the close frame that fails a connection) is appended to `output` for the transport to write.
///
/// ```swift
/// var connection = WebSocketConnection(role: .server)
/// var output: [UInt8] = []
/// connection.receive(readBuffer, output: &output) { event in
///     if case .text(let message) = event { handle(message) }
/// }
/// transport.write(output)
/// if connection.state == .closed { transport.closeAfterFlush() }
/// ```
///
/// A message is accumulated in one buffer that is reused for every message, and payload is unmasked and
/// validated as it arrives, so a bad byte fails the connection at once rather than at the end of the message.
/// The type is confined to the event loop that owns the connection and is deliberately not `Sendable`.
public struct WebSocketConnection {
    /// The connection's state; see ``WebSocketConnectionState``.
    public private(set) var state: WebSocketConnectionState = .open
    /// Our role.
    public let role: WebSocketRole
    /// The limits enforced on incoming frames and messages.
    public let limits: WebSocketLimits

    private var parser: FrameParser
    /// The data message being received, if any: its opcode (.text or .binary).
    private var messageOpcode: WebSocketOpcode?
    /// The reassembly buffer for data messages, reused across messages.
    private var messageBuffer: [UInt8] = []
    /// The payload of the control frame being received (at most 125 bytes, §5.5), reused.
    private var controlBuffer: [UInt8] = []
    /// Validates text messages incrementally, across frames.
    private var utf8 = UTF8Validator()
    /// The header of the frame whose payload is arriving.
    private var currentHeader: FrameHeader?
    /// The negotiated per-message compression extension (RFC 7692), if any; it alone makes RSV1 legal.
    private let compression: (any PerMessageCompression)?
    /// Whether the data message being received had RSV1 set on its first frame (RFC 7692 §6).
    private var messageIsCompressed = false
    /// Reused buffer for unmasked compressed input and for compressed output.
    private var compressionScratch: [UInt8] = []

    /// Creates the state machine for a connection whose opening handshake has completed.
    ///
    /// - Parameters:
    ///   - role: `.server` requires masked frames in; `.client` masks every frame out (§5.1).
    ///   - limits: frame and message size limits; exceeding them fails the connection with 1009. With compression,
    ///     `maxMessageSize` bounds the decompressed message.
    ///   - compression: the per-message compression extension negotiated in the handshake (RFC 7692), or `nil`.
    ///     Only with one is RSV1 accepted, and only on the first frame of a data message.
    public init(role: WebSocketRole, limits: WebSocketLimits = .default, compression: (any PerMessageCompression)? = nil) {
        self.role = role
        self.limits = limits
        self.compression = compression
        self.parser = FrameParser(role: role, limits: limits, allowedReservedBits: compression == nil ? 0 : 0b100)
        controlBuffer.reserveCapacity(125)
    }

    // MARK: - Receiving

    /// Feeds received bytes; see the type's documentation.
    ///
    /// - Parameters:
    ///   - bytes: bytes read from the transport, in any chunking.
    ///   - output: bytes to write to the peer are appended here (pong, close reply, failure close).
    ///   - onEvent: called synchronously for each event, in order.
    public mutating func receive(_ bytes: UnsafeRawBufferPointer, output: inout [UInt8], onEvent: (WebSocketEvent) -> Void) {
        var cursor = 0
        // §7.1.1/§1.4: after the close handshake (or a failure) nothing more is processed.
        while state != .closed {
            switch parser.next(bytes, cursor: &cursor) {
            case .needMore:
                return
            case .header(let header):
                if let error = beginFrame(header) { return fail(error, output: &output, onEvent: onEvent) }
            case .payload(let chunk, let offset):
                if let error = appendPayload(chunk, offset: offset) { return fail(error, output: &output, onEvent: onEvent) }
            case .frameEnd(let header):
                if let error = endFrame(header, output: &output, onEvent: onEvent) { return fail(error, output: &output, onEvent: onEvent) }
            case .failed(let error):
                return fail(error, output: &output, onEvent: onEvent)
            }
        }
    }

    /// Feeds received bytes from an array; see ``receive(_:output:onEvent:)``.
    public mutating func receive(_ bytes: [UInt8], output: inout [UInt8], onEvent: (WebSocketEvent) -> Void) {
        bytes.withUnsafeBytes { receive($0, output: &output, onEvent: onEvent) }
    }

    private mutating func beginFrame(_ header: FrameHeader) -> WebSocketProtocolError? {
        currentHeader = header
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
            messageBuffer.removeAll(keepingCapacity: true)
            utf8 = UTF8Validator()
            messageIsCompressed = compression != nil && header.reservedBits & 0b100 != 0
        }
        // Reserve for a message's first frame only (later frames grow the array geometrically), and at most
        // 64 KiB: a peer that announces a large frame and trickles bytes must not pin the whole allowance up front.
        if messageBuffer.isEmpty { messageBuffer.reserveCapacity(min(header.payloadLength, 64 << 10)) }
        return nil
    }

    private mutating func appendPayload(_ chunk: UnsafeRawBufferPointer, offset: Int) -> WebSocketProtocolError? {
        guard let header = currentHeader else { return nil }
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

    private mutating func endFrame(_ header: FrameHeader, output: inout [UInt8], onEvent: (WebSocketEvent) -> Void) -> WebSocketProtocolError? {
        currentHeader = nil
        switch header.opcode {
        case .ping:
            // §5.5.2: answer a ping with a pong carrying the same payload, unless we already sent close.
            if state == .open { writeFrame(.pong, controlBuffer, fin: true, into: &output) }
            onEvent(.ping(controlBuffer))
        case .pong:
            onEvent(.pong(controlBuffer))
        case .close:
            return receivedClose(output: &output, onEvent: onEvent)
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
            if opcode == .text {
                // §8.1: a message that ends inside a UTF-8 sequence is invalid.
                guard utf8.isAtCharacterBoundary else { return .invalidPayload("text message ends inside a UTF-8 sequence") }
                onEvent(.text(String(decoding: messageBuffer, as: UTF8.self)))
            } else {
                onEvent(.binary(Array(messageBuffer)))
            }
            messageBuffer.removeAll(keepingCapacity: true)
        }
        return nil
    }

    private mutating func receivedClose(output: inout [UInt8], onEvent: (WebSocketEvent) -> Void) -> WebSocketProtocolError? {
        let payload = controlBuffer
        var code: CloseCode?
        var reason = ""
        switch payload.count {
        case 0:
            break  // §7.1.5: no status code; reported as 1005 (here nil).
        case 1:
            // §5.5.1: if there is a body, its first two bytes MUST be a status code.
            return .protocolError("close frame with a 1-byte payload")
        default:
            let received = CloseCode(rawValue: UInt16(payload[0]) << 8 | UInt16(payload[1]))
            // §7.4: a code that may not appear on the wire is a protocol error.
            guard received.isValidOnWire else { return .protocolError("invalid close code \(received.rawValue)") }
            let reasonBytes = Array(payload[2...])
            // §5.5.1: the close reason is UTF-8; invalid data is 1007 (§8.1).
            guard UTF8Validator.isValid(reasonBytes) else { return .invalidPayload("invalid UTF-8 in close reason") }
            code = received
            reason = String(decoding: reasonBytes, as: UTF8.self)
        }
        if state == .open {
            // §5.5.1: an endpoint that receives a close and has not sent one MUST reply with a close, typically
            // echoing the status code it received.
            writeFrame(.close, FrameEncoder.closePayload(code: code, reason: ""), fin: true, into: &output)
        }
        state = .closed
        releaseBuffers()
        onEvent(.closed(code: code, reason: reason))
        return nil
    }

    private mutating func fail(_ error: WebSocketProtocolError, output: inout [UInt8], onEvent: (WebSocketEvent) -> Void) {
        // §7.1.7: to fail the connection, send a close with the reason code (unless one was already sent, §5.5.1),
        // then close the transport. Status code only, so the bytes are e.g. 88 02 03 EA for 1002 from a server.
        if state == .open { writeFrame(.close, FrameEncoder.closePayload(code: error.closeCode, reason: ""), fin: true, into: &output) }
        state = .closed
        releaseBuffers()
        onEvent(.failed(error))
    }

    private mutating func releaseBuffers() {
        messageBuffer = []
        controlBuffer = []
        compressionScratch = []
        messageOpcode = nil
        messageIsCompressed = false
    }

    // MARK: - Sending

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

    /// Starts the close handshake (§7.1.2): appends a close frame and moves to ``WebSocketConnectionState/closing``.
    ///
    /// The reason is truncated at a character boundary to fit 123 bytes; a code that may not be sent (1005, 1006)
    /// produces a close frame without a body. Does nothing unless the connection is open.
    public mutating func close(code: CloseCode, reason: String, into output: inout [UInt8]) {
        guard state == .open else { return }
        writeFrame(.close, FrameEncoder.closePayload(code: code, reason: reason), fin: true, into: &output)
        state = .closing
    }

    /// Marks the connection closed without sending anything, e.g. when the TCP connection dropped or a close
    /// timeout expired (the peer's view is then 1006, §7.1.5).
    public mutating func abandon() {
        state = .closed
        releaseBuffers()
    }

    /// Writes a whole data message as one frame, compressed with RSV1 set when the extension chooses to (RFC 7692 §6).
    private mutating func writeMessage(_ opcode: WebSocketOpcode, _ payload: UnsafeRawBufferPointer, into output: inout [UInt8]) {
        guard let compression, compression.compress(payload, into: &compressionScratch) else {
            return writeFrame(opcode, payload, fin: true, into: &output)
        }
        let start = output.count
        compressionScratch.withUnsafeBytes { writeFrame(opcode, $0, fin: true, into: &output) }
        output[start] |= 0x40  // RSV1: "Per-Message Compressed" (RFC 7692 §6)
        if compressionScratch.capacity > 64 << 10 { compressionScratch = [] }  // a 1 MiB message must not pin 1 MiB
    }

    private func writeFrame(_ opcode: WebSocketOpcode, _ payload: [UInt8], fin: Bool, into output: inout [UInt8]) {
        payload.withUnsafeBytes { writeFrame(opcode, $0, fin: fin, into: &output) }
    }

    private func writeFrame(_ opcode: WebSocketOpcode, _ payload: UnsafeRawBufferPointer, fin: Bool, into output: inout [UInt8]) {
        switch role {
        case .server:
            FrameEncoder.encodeServerFrame(opcode: opcode, payload: payload, fin: fin, into: &output)
        case .client:
            // §5.3: a fresh, unpredictable masking key for every frame.
            FrameEncoder.encodeClientFrame(opcode: opcode, payload: payload, maskKey: MaskKey.random().bytes, fin: fin, into: &output)
        }
    }
}

@available(*, unavailable, message: "A WebSocket connection is confined to the event loop that owns it")
extension WebSocketConnection: Sendable {}
