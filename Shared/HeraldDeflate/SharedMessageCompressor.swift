import HeraldBytes
import HeraldWebSocket

/// Compresses a message once for every receiver that shares a compression context (fan-out).
///
/// Receivers whose outgoing direction has no context takeover (``PerMessageDeflate/sharedCompressionWindowBits``
/// non-nil) decode any message compressed from a fresh context with a window no larger than theirs. So a broadcast
/// needs one compression per distinct window size, not one per receiver; with the server's default
/// (`server_no_context_takeover`, window 15) that is exactly one.
///
/// The deflater is the calling thread's, from the one cache of reset-after-every-message compressors that
/// ``PerMessageDeflate`` borrows from too: a loop keeps one per configuration, whoever compresses on it.
///
/// ```swift
/// let shared = try SharedMessageCompressor(windowBits: 15)
/// let frame = OutgoingFrame(.text, payload: shared.compressOnce(text), compressed: true)   // once
/// for session in receivers where session.compressionWindowBits == 15 { session.send(frame.bytes) }
/// ```
///
/// Thread-confined: use it on the thread that made it.
public final class SharedMessageCompressor {
    /// The window this compressor uses; only receivers with at least this window may get its output.
    public let windowBits: Int
    private let options: PerMessageDeflateOptions
    private var scratch: [UInt8] = []

    /// Creates a compressor.
    ///
    /// - Parameters:
    ///   - windowBits: 9...15 (zlib raw deflate cannot compress with 8).
    ///   - options: level and memory level (the size threshold is the caller's business here).
    public init(windowBits: Int = 15, options: PerMessageDeflateOptions = .init()) throws(PerMessageDeflateError) {
        guard (9...15).contains(windowBits) else { throw .unsupportedWindowBits(parameter: "windowBits", value: windowBits) }
        self.windowBits = windowBits
        self.options = options
    }

    /// The compressed payload of one message (tail stripped, RFC 7692 §7.2.1), from a fresh context, to be sent with
    /// RSV1 set to every receiver in this context. An empty payload compresses to the single byte `00` (§7.2.3.6).
    public func compressOnce(_ payload: UnsafeRawBufferPointer) -> [UInt8] {
        guard payload.count > 0 else { return [0x00] }
        if let deflater = ThreadDeflaterCache.deflater(windowBits: windowBits, level: options.compressionLevel, memoryLevel: options.memoryLevel),
           deflater.compressMessage(payload, into: &scratch, resetAfter: true) {
            return scratch
        }
        // zlib failed (it does not for valid streams) or gave no deflater: a stored block is always valid deflate data.
        return Self.storedBlocks(payload)
    }

    /// ``compressOnce(_:)-(UnsafeRawBufferPointer)`` for an array.
    public func compressOnce(_ payload: [UInt8]) -> [UInt8] {
        payload.withUnsafeBytes { compressOnce($0) }
    }

    /// Non-final stored blocks holding `payload`, ending byte-aligned (RFC 1951 §3.2.4), minus the sync tail.
    static func storedBlocks(_ payload: UnsafeRawBufferPointer) -> [UInt8] {
        var output: [UInt8] = []
        var offset = 0
        repeat {
            let length = min(0xFFFF, payload.count - offset)
            output += [0x00, UInt8(length & 0xFF), UInt8(length >> 8), UInt8(~length & 0xFF), UInt8((~length >> 8) & 0xFF)]
            output.append(contentsOf: payload[offset..<(offset + length)])
            offset += length
        } while offset < payload.count
        output += [0x00, 0x00, 0x00, 0xFF, 0xFF]
        output.removeLast(4)
        return output
    }
}

@available(*, unavailable, message: "A shared compressor is used from one thread at a time")
extension SharedMessageCompressor: Sendable {}
