import HeraldBytes
import HeraldDeflate
import HeraldNet
import HeraldWebSocket

/// How a session wants its fan-out frames (RFC 7692).
enum OutgoingCompression {
    /// No permessage-deflate: the shared plain frame, by reference.
    case none
    /// Without context takeover in our direction (the server always answers `server_no_context_takeover`), any
    /// message deflated from a fresh context with this window is valid for the session: one compressed frame per
    /// loop and configuration serves every such session.
    case shared(windowBits: Int, options: PerMessageDeflateOptions)
    /// With context takeover every message depends on the session's own history: it compresses for itself.
    case own
}

/// One loop's fan-out compressors, one per window size and tuning. Confined to that loop's thread.
final class LoopCompressors: @unchecked Sendable {
    // @unchecked: only ever used on the loop thread whose index this object has (like BroadcastHub.Members).
    private var compressors: [Key: SharedMessageCompressor] = [:]

    private struct Key: Hashable {
        var windowBits: Int
        var options: PerMessageDeflateOptions
    }

    /// The loop's compressor for the configuration, made on first use; nil if zlib cannot provide one.
    func compressor(windowBits: Int, options: PerMessageDeflateOptions) -> SharedMessageCompressor? {
        let key = Key(windowBits: windowBits, options: options)
        if let existing = compressors[key] { return existing }
        guard let made = try? SharedMessageCompressor(windowBits: windowBits, options: options) else { return nil }
        compressors[key] = made
        return made
    }
}

/// One pre-encoded server frame on its way to the sessions of one loop: the plain frame, plus its compressed form per
/// configuration, deflated at most once on this loop, when the first session that negotiated it comes up.
struct FanOutFrame {
    let plain: SharedBytes
    private let layout: ServerFrameLayout?
    /// The compressed frames made so far; nil when compression did not pay (the plain frame goes instead).
    private var compressed: [(windowBits: Int, options: PerMessageDeflateOptions, frame: SharedBytes?)] = []

    init(_ plain: SharedBytes) {
        self.plain = plain
        layout = plain.withUnsafeBytes { ServerFrameLayout(parsing: $0) }
    }

    /// The frame `head` + `body` in one shared buffer (a split /sync event frame, for sessions that need it whole).
    init(joining head: UnsafeRawBufferPointer, _ body: SharedBytes) {
        self.init(SharedBytes(count: head.count + body.count) { buffer in
            if head.count > 0 { UnsafeMutableRawBufferPointer(rebasing: buffer[..<head.count]).copyMemory(from: head) }
            body.withUnsafeBytes { source in
                if source.count > 0 { UnsafeMutableRawBufferPointer(rebasing: buffer[head.count...]).copyMemory(from: source) }
            }
        })
    }

    /// The frame to queue for a session with `compression`, compressing on first need with `compressors`.
    mutating func frame(for compression: OutgoingCompression, compressors: LoopCompressors) -> SharedBytes {
        guard case .shared(let windowBits, let options) = compression, let layout,
              layout.payloadLength > 0, layout.payloadLength >= options.minimumSizeToCompress else { return plain }
        if let made = compressed.first(where: { $0.windowBits == windowBits && $0.options == options }) {
            return made.frame ?? plain
        }
        let frame = compress(layout, compressor: compressors.compressor(windowBits: windowBits, options: options))
        compressed.append((windowBits, options, frame))
        return frame ?? plain
    }

    /// The payload of the plain frame, for a session that compresses with its own context.
    var message: (opcode: WebSocketOpcode, payload: [UInt8])? {
        guard let layout else { return nil }
        return (layout.opcode, plain.withUnsafeBytes { Array($0[layout.payloadOffset...]) })
    }

    /// The payload deflated into a frame with RSV1 (RFC 7692 §6); nil when it would not be smaller on the wire.
    private func compress(_ layout: ServerFrameLayout, compressor: SharedMessageCompressor?) -> SharedBytes? {
        guard let compressor else { return nil }
        let deflated = plain.withUnsafeBytes { compressor.compressOnce(UnsafeRawBufferPointer(rebasing: $0[layout.payloadOffset...])) }
        guard deflated.count < layout.payloadLength else { return nil }
        var frame: [UInt8] = []
        frame.reserveCapacity(FrameEncoder.headerSize(payloadLength: deflated.count, masked: false) + deflated.count)
        deflated.withUnsafeBytes { FrameEncoder.encodeServerFrame(opcode: layout.opcode, payload: $0, into: &frame) }
        frame[0] |= 0x40  // RSV1: "Per-Message Compressed"
        return SharedBytes(frame)
    }
}

/// Where the payload of a complete, unfragmented, unmasked server data frame starts (RFC 6455 §5.2). Anything
/// else (control frames, fragments, RSV bits already set) is not a message to compress and parses as nil.
struct ServerFrameLayout {
    var opcode: WebSocketOpcode
    var payloadOffset: Int
    var payloadLength: Int

    /// A complete unmasked text frame carrying `payload`, encoded in place in one shared buffer (one allocation and
    /// one copy of the payload; the same bytes `FrameEncoder.encodeServerFrame` writes).
    static func textFrame(_ payload: [UInt8]) -> SharedBytes {
        let header = FrameEncoder.headerSize(payloadLength: payload.count, masked: false)
        return SharedBytes(count: header + payload.count) { buffer in
            _ = writeTextHeader(payloadLength: payload.count, into: buffer)
            payload.withUnsafeBytes { source in
                UnsafeMutableRawBufferPointer(rebasing: buffer[header...]).copyMemory(from: source)
            }
        }
    }

    /// Writes the header of an unmasked, final text frame of `payloadLength` bytes (RFC 6455 §5.2: 2, 4 or 10
    /// bytes) at the start of `buffer` (at least 10 bytes) and returns its size.
    static func writeTextHeader(payloadLength: Int, into buffer: UnsafeMutableRawBufferPointer) -> Int {
        let header = FrameEncoder.headerSize(payloadLength: payloadLength, masked: false)
        buffer[0] = 0x80 | WebSocketOpcode.text.rawValue  // FIN + text
        switch header {
        case 2:
            buffer[1] = UInt8(payloadLength)
        case 4:
            buffer[1] = 126
            buffer[2] = UInt8(truncatingIfNeeded: payloadLength >> 8)
            buffer[3] = UInt8(truncatingIfNeeded: payloadLength)
        default:
            buffer[1] = 127
            for index in 0..<8 { buffer[2 + index] = UInt8(truncatingIfNeeded: UInt64(payloadLength) >> (56 - 8 * UInt64(index))) }
        }
        return header
    }

    init?(parsing frame: UnsafeRawBufferPointer) {
        guard frame.count >= 2 else { return nil }
        let first = frame[0], second = frame[1]
        // FIN set, RSV1-3 clear, text or binary; no mask bit (server frames are never masked).
        guard first & 0xF0 == 0x80, second & 0x80 == 0 else { return nil }
        switch first & 0x0F {
        case WebSocketOpcode.text.rawValue: opcode = .text
        case WebSocketOpcode.binary.rawValue: opcode = .binary
        default: return nil
        }
        var offset = 2
        var length = Int(second & 0x7F)
        if length == 126 {
            guard frame.count >= 4 else { return nil }
            length = Int(frame[2]) << 8 | Int(frame[3])
            offset = 4
        } else if length == 127 {
            guard frame.count >= 10 else { return nil }
            var wide: UInt64 = 0
            for index in 2..<10 { wide = wide << 8 | UInt64(frame[index]) }
            guard wide <= UInt64(Int.max) else { return nil }
            length = Int(wide)
            offset = 10
        }
        guard frame.count - offset == length else { return nil }
        payloadOffset = offset
        payloadLength = length
    }
}
