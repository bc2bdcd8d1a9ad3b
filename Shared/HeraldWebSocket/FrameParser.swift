/// A resumable, sans-IO WebSocket frame parser (RFC 6455 §5.2).
///
/// Feed it any chunking of the byte stream; it returns one ``Step`` at a time. Every check that the header alone
/// can decide is made as soon as the deciding byte arrives, before a single payload byte is consumed:
/// a 1 GiB length fails with 1009 at its eighth length byte. Payload is handed out as it arrives, still masked,
/// so that the caller can unmask it in its own buffer and validate UTF-8 and size limits incrementally.
///
/// The parser also tracks message framing (§5.4), because that too is decidable from headers alone: a
/// continuation without a started message or a new data frame inside a fragmented one fails at the first byte, and
/// a fragment that would push the message past `maxMessageSize` fails as soon as its length is known.
///
/// Once failed, the parser stays failed and consumes nothing more.
public struct FrameParser {
    /// One parsing step's outcome.
    public enum Step {
        /// All input from the cursor has been consumed; call again with more bytes.
        case needMore
        /// A frame header was completed and passed every header check. Its payload follows.
        case header(FrameHeader)
        /// A piece of the current frame's payload, STILL MASKED if the header has a mask key.
        ///
        /// `chunk` points into the caller's input and is only valid until `next` is called again;
        /// `offset` is the position of its first byte within the frame's payload (the masking phase).
        case payload(chunk: UnsafeRawBufferPointer, offset: Int)
        /// The current frame's payload is complete (sent right after `.header` for an empty payload).
        case frameEnd(FrameHeader)
        /// The input violates the protocol; the connection must be failed with the error's close code.
        case failed(WebSocketProtocolError)
    }

    /// What the first two header bytes said, kept while the rest of the header arrives.
    private struct PartialHeader {
        var fin: Bool
        var reservedBits: UInt8
        var opcode: WebSocketOpcode
        var masked: Bool
    }

    private enum State {
        case firstByte
        case secondByte(first: UInt8)
        case extendedLength(PartialHeader, bytesLeft: Int, value: UInt64)
        case maskKey(PartialHeader, length: Int, collected: Int, key: (UInt8, UInt8, UInt8, UInt8))
        case payload(FrameHeader, consumed: Int)
        case failed(WebSocketProtocolError)
    }

    // One parser per open connection: the one-byte properties sit together so the struct packs.
    private var state: State = .firstByte
    private let role: WebSocketRole
    private let allowedReservedBits: UInt8
    /// Whether a fragmented data message has started and not yet ended (§5.4).
    private var messageInProgress = false
    /// The frame and message size limits checked as soon as a length is known.
    public let limits: WebSocketLimits
    /// Payload bytes announced so far by the current data message's frames.
    private var messageBytes = 0

    /// Creates a parser.
    ///
    /// - Parameters:
    ///   - role: our role; a server requires masked frames, a client refuses them (§5.1).
    ///   - limits: frame size limit checked as soon as the length is known.
    ///   - allowedReservedBits: RSV bits a negotiated extension defines (e.g. `0b100` for permessage-deflate's RSV1);
    ///     any other set RSV bit fails the connection (§5.2).
    public init(role: WebSocketRole, limits: WebSocketLimits = .default, allowedReservedBits: UInt8 = 0) {
        self.role = role
        self.limits = limits
        self.allowedReservedBits = allowedReservedBits & 0b111
    }

    /// Whether the parser has rejected its input; it then ignores everything else.
    public var hasFailed: Bool {
        if case .failed = state { return true }
        return false
    }

    /// The header of the frame whose payload is arriving (from ``Step/header(_:)`` until ``Step/frameEnd(_:)``).
    public var currentHeader: FrameHeader? {
        if case .payload(let header, _) = state { return header }
        return nil
    }

    /// Whether the parser sits between frames (no partial frame buffered).
    public var isAtFrameBoundary: Bool {
        if case .firstByte = state { return true }
        return false
    }

    /// Advances over `bytes` starting at `cursor` and returns the next step.
    ///
    /// - Parameters:
    ///   - bytes: the received bytes.
    ///   - cursor: index into `bytes` of the first unconsumed byte; advanced past what this step consumed.
    public mutating func next(_ bytes: UnsafeRawBufferPointer, cursor: inout Int) -> Step {
        while true {
            switch state {
            case .failed(let error):
                cursor = bytes.count
                return .failed(error)

            case .payload(let header, let consumed):
                if consumed == header.payloadLength {
                    state = .firstByte
                    return .frameEnd(header)
                }
                guard cursor < bytes.count else { return .needMore }
                let take = min(header.payloadLength - consumed, bytes.count - cursor)
                let chunk = UnsafeRawBufferPointer(rebasing: bytes[cursor..<(cursor + take)])
                cursor += take
                state = .payload(header, consumed: consumed + take)
                return .payload(chunk: chunk, offset: consumed)

            case .firstByte:
                guard cursor < bytes.count else { return .needMore }
                if let step = wholeHeader(bytes, cursor: &cursor) { return step }
                let first = bytes[cursor]
                cursor += 1
                if let error = checkFirstByte(first) ?? checkMessageFraming(first) { return fail(error, cursor: &cursor, count: bytes.count) }
                state = .secondByte(first: first)

            case .secondByte(let first):
                guard cursor < bytes.count else { return .needMore }
                let second = bytes[cursor]
                cursor += 1
                let partial = PartialHeader(fin: first & 0x80 != 0, reservedBits: (first >> 4) & 0b111,
                                            opcode: WebSocketOpcode(rawValue: first & 0x0F), masked: second & 0x80 != 0)
                let length7 = Int(second & 0x7F)
                if let error = checkSecondByte(partial, length7: length7) { return fail(error, cursor: &cursor, count: bytes.count) }
                switch length7 {
                case 126: state = .extendedLength(partial, bytesLeft: 2, value: 0)
                case 127: state = .extendedLength(partial, bytesLeft: 8, value: 0)
                default:
                    if let error = checkLength(length7, partial) { return fail(error, cursor: &cursor, count: bytes.count) }
                    if let step = lengthKnown(partial, length: length7) { return step }
                }

            case .extendedLength(let partial, let bytesLeft, var value):
                guard cursor < bytes.count else { return .needMore }
                value = value << 8 | UInt64(bytes[cursor])
                cursor += 1
                if bytesLeft == 8 && value & 0x80 != 0 {
                    // §5.2: with a 64-bit length "the most significant bit MUST be 0".
                    return fail(.protocolError("64-bit payload length has its most significant bit set"), cursor: &cursor, count: bytes.count)
                }
                // Reject an oversized length as soon as the bytes seen so far guarantee it, not only at the last byte.
                let shift = UInt64(8 * (bytesLeft - 1))
                if bytesLeft > 1, value > UInt64(allowance(for: partial)) >> shift {
                    return fail(.tooBig("payload length exceeds the frame or message size limit"), cursor: &cursor, count: bytes.count)
                }
                if bytesLeft > 1 {
                    state = .extendedLength(partial, bytesLeft: bytesLeft - 1, value: value)
                } else {
                    // §5.2 asks senders for the minimal length encoding; receivers are not told to reject a longer
                    // one, so a 126/127 encoding of a short length is accepted (as NIO and browsers do).
                    let length = Int(value)  // value <= maxFrameSize <= Int.max here
                    if let error = checkLength(length, partial) { return fail(error, cursor: &cursor, count: bytes.count) }
                    if let step = lengthKnown(partial, length: length) { return step }
                }

            case .maskKey(let partial, let length, let collected, var key):
                guard cursor < bytes.count else { return .needMore }
                let byte = bytes[cursor]
                cursor += 1
                switch collected {
                case 0: key.0 = byte
                case 1: key.1 = byte
                case 2: key.2 = byte
                default: key.3 = byte
                }
                if collected < 3 {
                    state = .maskKey(partial, length: length, collected: collected + 1, key: key)
                } else {
                    return headerComplete(partial, length: length, maskKey: MaskKey(key))
                }
            }
        }
    }

    /// The header at `cursor` in one step when the input holds all of it and its length fits in 16 bits (nearly
    /// every frame): the same checks, in the same order and with the same errors, as the byte-by-byte states below,
    /// without a state change per byte. Nil, consuming nothing, when the byte-by-byte path must take it.
    private mutating func wholeHeader(_ bytes: UnsafeRawBufferPointer, cursor: inout Int) -> Step? {
        let available = bytes.count - cursor
        guard available >= 2 else { return nil }
        let first = bytes[cursor]
        let second = bytes[cursor + 1]
        let length7 = Int(second & 0x7F)
        let masked = second & 0x80 != 0
        let headerSize = 2 + (length7 == 126 ? 2 : 0) + (masked ? 4 : 0)
        guard length7 != 127, available >= headerSize else { return nil }
        if let error = checkFirstByte(first) ?? checkMessageFraming(first) { return fail(error, cursor: &cursor, count: bytes.count) }
        let partial = PartialHeader(fin: first & 0x80 != 0, reservedBits: (first >> 4) & 0b111,
                                    opcode: WebSocketOpcode(rawValue: first & 0x0F), masked: masked)
        if let error = checkSecondByte(partial, length7: length7) { return fail(error, cursor: &cursor, count: bytes.count) }
        var position = cursor + 2
        var length = length7
        if length7 == 126 {
            let high = Int(bytes[position])
            if high > allowance(for: partial) >> 8 {
                return fail(.tooBig("payload length exceeds the frame or message size limit"), cursor: &cursor, count: bytes.count)
            }
            length = high << 8 | Int(bytes[position + 1])
            position += 2
        }
        if let error = checkLength(length, partial) { return fail(error, cursor: &cursor, count: bytes.count) }
        var maskKey: MaskKey?
        if masked {
            maskKey = MaskKey((bytes[position], bytes[position + 1], bytes[position + 2], bytes[position + 3]))
            position += 4
        }
        cursor = position
        return headerComplete(partial, length: length, maskKey: maskKey)
    }

    // MARK: - Header checks

    private func checkFirstByte(_ first: UInt8) -> WebSocketProtocolError? {
        let reservedBits = (first >> 4) & 0b111
        if reservedBits & ~allowedReservedBits != 0 {
            // §5.2: RSV1-3 MUST be 0 unless an extension defining them was negotiated; otherwise MUST fail.
            return .protocolError("reserved bits 0b\(String(reservedBits, radix: 2)) set without a negotiated extension")
        }
        let opcode = WebSocketOpcode(rawValue: first & 0x0F)
        if !opcode.isDefined {
            // §5.2: "If an unknown opcode is received, the receiving endpoint MUST _Fail the WebSocket Connection_."
            return .protocolError("reserved opcode 0x\(String(opcode.rawValue, radix: 16))")
        }
        if opcode.isControl && first & 0x80 == 0 {
            // §5.5: control frames MUST NOT be fragmented.
            return .protocolError("fragmented \(opcode) frame")
        }
        return nil
    }

    private func checkSecondByte(_ partial: PartialHeader, length7: Int) -> WebSocketProtocolError? {
        if partial.opcode.isControl && length7 > 125 {
            // §5.5: all control frames MUST have a payload length of 125 bytes or less.
            return .protocolError("\(partial.opcode) frame longer than 125 bytes")
        }
        switch role {
        case .server where !partial.masked:
            // §5.1: a server MUST close the connection upon receiving a frame that is not masked (1002, §7.4.1).
            return .protocolError("unmasked frame from client")
        case .client where partial.masked:
            // §5.1: a client MUST close a connection if it detects a masked frame.
            return .protocolError("masked frame from server")
        default:
            return nil
        }
    }

    private func checkMessageFraming(_ first: UInt8) -> WebSocketProtocolError? {
        let opcode = WebSocketOpcode(rawValue: first & 0x0F)
        if opcode == .continuation && !messageInProgress {
            // §5.4: a continuation frame only continues a fragmented message that was started.
            return .protocolError("continuation frame without a message to continue")
        }
        if (opcode == .text || opcode == .binary) && messageInProgress {
            // §5.4: fragments of one message MUST NOT be interleaved with another data message.
            return .protocolError("new \(opcode) message while a fragmented message is unfinished")
        }
        return nil
    }

    /// The largest payload this frame may announce: the frame limit, and for a data frame what is left of the
    /// message limit (a continuation adds to the bytes already announced for its message).
    private func allowance(for partial: PartialHeader) -> Int {
        if partial.opcode.isControl { return min(125, limits.maxFrameSize) }
        let used = partial.opcode == .continuation ? messageBytes : 0
        return max(0, min(limits.maxFrameSize, limits.maxMessageSize - used))
    }

    private func checkLength(_ length: Int, _ partial: PartialHeader) -> WebSocketProtocolError? {
        // §10.4: implementations SHOULD impose frame and message size limits; exceeding them is 1009 (§7.4.1).
        if length > limits.maxFrameSize { return .tooBig("frame payload length \(length) exceeds \(limits.maxFrameSize) bytes") }
        if length > allowance(for: partial) { return .tooBig("message exceeds \(limits.maxMessageSize) bytes") }
        return nil
    }

    // MARK: - Transitions

    private mutating func lengthKnown(_ partial: PartialHeader, length: Int) -> Step? {
        if partial.masked {
            state = .maskKey(partial, length: length, collected: 0, key: (0, 0, 0, 0))
            return nil
        }
        return headerComplete(partial, length: length, maskKey: nil)
    }

    private mutating func headerComplete(_ partial: PartialHeader, length: Int, maskKey: MaskKey?) -> Step {
        let header = FrameHeader(fin: partial.fin, reservedBits: partial.reservedBits, opcode: partial.opcode,
                                 maskKey: maskKey, payloadLength: length)
        if !partial.opcode.isControl {
            messageBytes = partial.opcode == .continuation ? messageBytes + length : length
            messageInProgress = !partial.fin
        }
        state = .payload(header, consumed: 0)
        return .header(header)
    }

    private mutating func fail(_ error: WebSocketProtocolError, cursor: inout Int, count: Int) -> Step {
        state = .failed(error)
        cursor = count
        return .failed(error)
    }
}

@available(*, unavailable, message: "A frame parser belongs to one connection on one event loop")
extension FrameParser: Sendable {}
