import HeraldBytes

/// One complete unmasked server frame (RFC 6455 §5.2), encoded once into a ``SharedBytes`` so that any number of
/// receivers can queue it by reference; it knows where its payload starts, so nothing has to parse it back.
///
/// ```swift
/// let frame = OutgoingFrame.text(json)                 // header + payload, one allocation, one copy
/// for session in receivers { session.send(frame.bytes) }
/// ```
public struct OutgoingFrame: Sendable {
    /// The frame's opcode.
    public let opcode: WebSocketOpcode
    /// Whether this is the last frame of its message.
    public let fin: Bool
    /// Whether RSV1 is set: the payload is deflated (RFC 7692 §6).
    public let compressed: Bool
    /// The whole frame, header and payload.
    public let bytes: SharedBytes
    /// Where the payload starts in ``bytes``: the header's size.
    public let payloadOffset: Int

    /// Encodes a frame carrying a copy of `payload`.
    public init(_ opcode: WebSocketOpcode, payload: UnsafeRawBufferPointer, fin: Bool = true, compressed: Bool = false) {
        let header = FrameEncoder.headerSize(payloadLength: payload.count, masked: false)
        self.init(opcode, fin: fin, compressed: compressed, payloadOffset: header, bytes: SharedBytes(count: header + payload.count) { buffer in
            _ = FrameEncoder.writeHeader(fin: fin, compressed: compressed, opcode: opcode, payloadLength: payload.count, into: buffer)
            if payload.count > 0 { UnsafeMutableRawBufferPointer(rebasing: buffer[header...]).copyMemory(from: payload) }
        })
    }

    /// Encodes a frame carrying a copy of `payload`.
    public init(_ opcode: WebSocketOpcode, payload: [UInt8], fin: Bool = true, compressed: Bool = false) {
        self = payload.withUnsafeBytes { OutgoingFrame(opcode, payload: $0, fin: fin, compressed: compressed) }
    }

    /// The final, uncompressed text frame carrying `payload` (UTF-8).
    public static func text(_ payload: [UInt8]) -> OutgoingFrame { OutgoingFrame(.text, payload: payload) }

    /// A final, uncompressed text frame made of an encoded `head` (the header for the whole payload, then the start
    /// of the payload; `headerSize` bytes of it are header) followed by `body`, joined in one shared buffer.
    public init(textHead head: UnsafeRawBufferPointer, headerSize: Int, body: SharedBytes) {
        self.init(.text, fin: true, compressed: false, payloadOffset: headerSize, bytes: SharedBytes(count: head.count + body.count) { buffer in
            if head.count > 0 { UnsafeMutableRawBufferPointer(rebasing: buffer[..<head.count]).copyMemory(from: head) }
            body.withUnsafeBytes { source in
                if source.count > 0 { UnsafeMutableRawBufferPointer(rebasing: buffer[head.count...]).copyMemory(from: source) }
            }
        })
    }

    private init(_ opcode: WebSocketOpcode, fin: Bool, compressed: Bool, payloadOffset: Int, bytes: SharedBytes) {
        self.opcode = opcode
        self.fin = fin
        self.compressed = compressed
        self.payloadOffset = payloadOffset
        self.bytes = bytes
    }

    /// The payload's length.
    public var payloadCount: Int { bytes.count - payloadOffset }

    /// Whether the frame is a whole, uncompressed data message: the only kind permessage-deflate may compress
    /// (RFC 7692 §6: never a control frame, and RSV1 on a message's first frame only).
    public var isWholeUncompressedMessage: Bool { fin && !compressed && (opcode == .text || opcode == .binary) }

    /// Calls `body` with the payload.
    public func withPayload<Result>(_ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
        try bytes.withUnsafeBytes { try body(UnsafeRawBufferPointer(rebasing: $0[payloadOffset...])) }
    }
}
