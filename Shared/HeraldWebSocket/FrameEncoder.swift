/// Encodes WebSocket frames (RFC 6455 §5.2; see ``FrameHeader`` for the layout).
///
/// Server frames are unmasked (§5.1), so one encoding can be shared by every receiver of a broadcast:
/// encode once with ``encodeServerFrame(opcode:payload:fin:into:)`` and queue the same bytes everywhere.
/// Client frames are masked with a caller-supplied key (§5.3).
///
/// ```swift
/// let frame = FrameEncoder.serverTextFrame("{\"type\":\"event\"}")   // encode once, write to many sockets
/// ```
public enum FrameEncoder {
    /// Largest header: 2 bytes + 8-byte length + 4-byte mask key.
    public static let maxHeaderSize = 14

    /// The size of a frame header for a payload of `length` bytes.
    public static func headerSize(payloadLength length: Int, masked: Bool) -> Int {
        let lengthBytes = length <= 125 ? 0 : (length <= 0xFFFF ? 2 : 8)
        return 2 + lengthBytes + (masked ? 4 : 0)
    }

    /// Appends an unmasked (server-to-client) frame to `output`.
    ///
    /// - Parameters:
    ///   - opcode: the frame's opcode. Control frames must carry at most 125 bytes (§5.5); callers keep to that.
    ///   - payload: the payload bytes.
    ///   - fin: whether this is the final fragment of its message.
    ///   - compressed: sets RSV1, "Per-Message Compressed" (RFC 7692 §6), on a message's first frame.
    ///   - output: the buffer the frame is appended to.
    public static func encodeServerFrame(opcode: WebSocketOpcode, payload: UnsafeRawBufferPointer, fin: Bool = true, compressed: Bool = false,
                                         into output: inout [UInt8]) {
        appendHeader(fin: fin, compressed: compressed, opcode: opcode, length: payload.count, maskKey: nil, into: &output)
        output.append(contentsOf: payload)
    }

    /// Appends an unmasked (server-to-client) frame with an array payload; see ``encodeServerFrame(opcode:payload:fin:into:)``.
    public static func encodeServerFrame(opcode: WebSocketOpcode, payload: [UInt8], fin: Bool = true, compressed: Bool = false,
                                         into output: inout [UInt8]) {
        payload.withUnsafeBytes { encodeServerFrame(opcode: opcode, payload: $0, fin: fin, compressed: compressed, into: &output) }
    }

    /// A complete unmasked text frame, ready to be shared by many receivers.
    public static func serverTextFrame(_ text: String) -> [UInt8] {
        var text = text
        return text.withUTF8 { utf8 in
            var output: [UInt8] = []
            output.reserveCapacity(headerSize(payloadLength: utf8.count, masked: false) + utf8.count)
            encodeServerFrame(opcode: .text, payload: UnsafeRawBufferPointer(utf8), into: &output)
            return output
        }
    }

    /// A complete unmasked binary frame, ready to be shared by many receivers.
    public static func serverBinaryFrame(_ bytes: [UInt8]) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(headerSize(payloadLength: bytes.count, masked: false) + bytes.count)
        encodeServerFrame(opcode: .binary, payload: bytes, into: &output)
        return output
    }

    /// Appends a masked (client-to-server) frame to `output`.
    ///
    /// - Parameters:
    ///   - opcode: the frame's opcode.
    ///   - payload: the unmasked payload; it is copied into `output` and masked there.
    ///   - maskKey: the four key bytes; §5.3 requires a fresh unpredictable key per frame (see ``MaskKey/random()``).
    ///   - fin: whether this is the final fragment of its message.
    ///   - compressed: sets RSV1, "Per-Message Compressed" (RFC 7692 §6), on a message's first frame.
    ///   - output: the buffer the frame is appended to.
    public static func encodeClientFrame(opcode: WebSocketOpcode, payload: UnsafeRawBufferPointer, maskKey: (UInt8, UInt8, UInt8, UInt8),
                                         fin: Bool = true, compressed: Bool = false, into output: inout [UInt8]) {
        let key = MaskKey(maskKey)
        appendHeader(fin: fin, compressed: compressed, opcode: opcode, length: payload.count, maskKey: key, into: &output)
        let start = output.count
        output.append(contentsOf: payload)
        Masking.apply(key, to: &output, range: start..<output.count)
    }

    /// Appends a masked (client-to-server) frame with an array payload; see ``encodeClientFrame(opcode:payload:maskKey:fin:into:)``.
    public static func encodeClientFrame(opcode: WebSocketOpcode, payload: [UInt8], maskKey: (UInt8, UInt8, UInt8, UInt8),
                                         fin: Bool = true, into output: inout [UInt8]) {
        payload.withUnsafeBytes { encodeClientFrame(opcode: opcode, payload: $0, maskKey: maskKey, fin: fin, into: &output) }
    }

    /// The payload of a close frame: the code in network byte order, then the UTF-8 reason (§5.5.1).
    ///
    /// The reason is cut at a character boundary so the whole payload fits the 125-byte control frame limit (§5.5).
    /// A code that may not appear on the wire (1005, 1006, ...) yields an empty payload.
    public static func closePayload(code: CloseCode?, reason: String) -> [UInt8] {
        guard let code, code.isValidOnWire else { return [] }
        var payload: [UInt8] = [UInt8(code.rawValue >> 8), UInt8(code.rawValue & 0xFF)]
        let utf8 = Array(reason.utf8)
        var end = min(utf8.count, 123)
        // If the cut falls inside a character, back up to that character's first byte.
        if end < utf8.count {
            while end > 0, utf8[end] & 0xC0 == 0x80 { end -= 1 }
        }
        payload.append(contentsOf: utf8[0..<end])
        return payload
    }

    // MARK: - Header

    /// Writes a frame header (RFC 6455 §5.2: 2, 4 or 10 bytes, plus 4 with a mask key) at the start of `buffer` and
    /// returns its size, ``headerSize(payloadLength:masked:)``; `buffer` must hold that many bytes. Every frame header
    /// Herald sends is laid out here, RSV1 included.
    ///
    /// - Parameters:
    ///   - compressed: sets RSV1, "Per-Message Compressed" (RFC 7692 §6), on a message's first frame.
    public static func writeHeader(fin: Bool = true, compressed: Bool = false, opcode: WebSocketOpcode, payloadLength length: Int,
                                   maskKey: MaskKey? = nil, into buffer: UnsafeMutableRawBufferPointer) -> Int {
        buffer[0] = (fin ? 0x80 : 0) | (compressed ? 0x40 : 0) | opcode.rawValue
        let maskBit: UInt8 = maskKey == nil ? 0 : 0x80
        var size = 2
        // §5.2: "the minimal number of bytes MUST be used to encode the length".
        if length <= 125 {
            buffer[1] = maskBit | UInt8(length)
        } else if length <= 0xFFFF {
            buffer[1] = maskBit | 126
            buffer[2] = UInt8(length >> 8)
            buffer[3] = UInt8(length & 0xFF)
            size = 4
        } else {
            buffer[1] = maskBit | 127
            let wide = UInt64(length)
            for index in 0..<8 { buffer[2 + index] = UInt8(truncatingIfNeeded: wide >> UInt64(56 - 8 * index)) }
            size = 10
        }
        if let maskKey {
            buffer[size] = maskKey.bytes.0
            buffer[size + 1] = maskKey.bytes.1
            buffer[size + 2] = maskKey.bytes.2
            buffer[size + 3] = maskKey.bytes.3
            size += 4
        }
        return size
    }

    private static func appendHeader(fin: Bool, compressed: Bool, opcode: WebSocketOpcode, length: Int, maskKey: MaskKey?,
                                     into output: inout [UInt8]) {
        withUnsafeTemporaryAllocation(byteCount: maxHeaderSize, alignment: 1) { header in
            let size = writeHeader(fin: fin, compressed: compressed, opcode: opcode, payloadLength: length, maskKey: maskKey, into: header)
            output.append(contentsOf: UnsafeRawBufferPointer(rebasing: header[..<size]))
        }
    }
}
