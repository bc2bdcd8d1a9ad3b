import HeraldBytes
import HeraldDeflate
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

/// One outgoing frame on its way to the sessions of one loop: the plain frame, plus its compressed form per
/// configuration, deflated at most once on this loop (with the loop thread's compressor), when the first session
/// that negotiated it comes up.
struct FanOutFrame {
    let plain: OutgoingFrame
    /// The compressed frames made so far; nil when compression did not pay (the plain frame goes instead).
    private var compressed: [(windowBits: Int, options: PerMessageDeflateOptions, frame: SharedBytes?)] = []

    init(_ plain: OutgoingFrame) {
        self.plain = plain
    }

    /// The frame to queue for a session with `compression`, compressing on first need.
    mutating func frame(for compression: OutgoingCompression) -> SharedBytes {
        guard case .shared(let windowBits, let options) = compression, plain.isWholeUncompressedMessage,
              plain.payloadCount > 0, plain.payloadCount >= options.minimumSizeToCompress else { return plain.bytes }
        if let made = compressed.first(where: { $0.windowBits == windowBits && $0.options == options }) {
            return made.frame ?? plain.bytes
        }
        let frame = compress(windowBits: windowBits, options: options)
        compressed.append((windowBits, options, frame))
        return frame ?? plain.bytes
    }

    /// The payload deflated into a frame with RSV1 (RFC 7692 §6); nil when it would not be smaller on the wire.
    private func compress(windowBits: Int, options: PerMessageDeflateOptions) -> SharedBytes? {
        guard let compressor = try? SharedMessageCompressor(windowBits: windowBits, options: options) else { return nil }
        let deflated = plain.withPayload { compressor.compressOnce($0) }
        guard deflated.count < plain.payloadCount else { return nil }
        return OutgoingFrame(plain.opcode, payload: deflated, compressed: true).bytes
    }
}
