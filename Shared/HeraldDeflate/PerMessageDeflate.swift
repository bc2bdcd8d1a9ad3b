import CZlib
import HeraldWebSocket

/// Tuning that is ours to choose and not part of the negotiation.
public struct PerMessageDeflateOptions: Sendable, Hashable {
    /// Messages shorter than this are sent uncompressed (RSV1 clear): deflate's block overhead and CPU cost buy
    /// nothing on a few bytes. Empty messages are never compressed.
    public var minimumSizeToCompress = 64
    /// zlib level, 0...9, or -1 for zlib's default (6).
    public var compressionLevel: Int32 = -1
    /// zlib memLevel, 1...9: the compressor's hash tables take 2^(memoryLevel+9) bytes per connection.
    public var memoryLevel: Int32 = 8

    /// The defaults.
    public init() {}
}

/// permessage-deflate for one connection (RFC 7692), plugged into ``WebSocketStateMachine`` as its
/// ``PerMessageCompression``.
///
/// The two directions are independent contexts. Outgoing messages are deflated with a sync flush and lose their
/// `00 00 FF FF` tail (§7.2.1); incoming ones get it back before the last inflate (§7.2.2). Without context
/// takeover the context is reset after each message. Inflate output is capped at the connection's
/// `maxMessageSize` while it is produced, so a compression bomb fails with 1009 having cost at most about that much.
///
/// zlib streams are created on first use, so a connection that never sends (or never receives) a compressed
/// message holds no zlib memory for that direction. Without context takeover on the sending side (the server's
/// default) the compressor is borrowed from a per-thread cache, since nothing of it outlives a message.
/// Loop-confined like the connection.
///
/// ```swift
/// let compression = try PerMessageDeflate(parameters: agreed, role: .server)
/// var machine = WebSocketStateMachine(role: .server, limits: limits, compression: compression)
/// ```
public final class PerMessageDeflate: PerMessageCompression {
    /// The agreement this connection runs with.
    public let parameters: PerMessageDeflateParameters
    /// Our role; decides which parameters govern which direction.
    public let role: WebSocketRole
    /// Our tuning.
    public let options: PerMessageDeflateOptions

    private var deflater: ZlibDeflater?
    private var inflater: ZlibInflater?
    private var inflatedBefore = 0

    /// Creates the codec for a negotiated agreement.
    ///
    /// - Throws: ``PerMessageDeflateError/unsupportedWindowBits(parameter:value:)`` if our sending window is 8 (zlib
    ///   cannot compress with it; negotiation never agrees to that, but hand-built parameters might).
    public init(parameters: PerMessageDeflateParameters, role: WebSocketRole, options: PerMessageDeflateOptions = .init()) throws(PerMessageDeflateError) {
        let sending = parameters.sendingWindowBits(for: role)
        guard (9...15).contains(sending) else {
            throw .unsupportedWindowBits(parameter: role == .server ? "server_max_window_bits" : "client_max_window_bits", value: sending)
        }
        guard (9...15).contains(parameters.receivingWindowBits(for: role)) else {
            throw .invalidValue(parameter: "max_window_bits", value: String(parameters.receivingWindowBits(for: role)))
        }
        self.parameters = parameters
        self.role = role
        self.options = options
    }

    /// The window our outgoing messages use when they carry no context, i.e. the key under which a broadcast may be
    /// compressed once and shared (``SharedMessageCompressor``); `nil` while context takeover is in effect, because
    /// then every message depends on this connection's history and must be compressed here.
    public var sharedCompressionWindowBits: Int? {
        parameters.sendsWithoutContextTakeover(for: role) ? parameters.sendingWindowBits(for: role) : nil
    }

    /// Decompressed bytes produced over the connection's life, including a message that failed (bomb diagnostics).
    public var inflatedByteCount: Int { inflatedBefore + (inflater?.totalProduced ?? 0) }

    // MARK: - PerMessageCompression

    public func compress(_ payload: UnsafeRawBufferPointer, into compressed: inout [UInt8]) -> Bool {
        guard payload.count > 0, payload.count >= options.minimumSizeToCompress else { return false }
        // Nothing of this connection survives the message without context takeover: borrow the thread's compressor
        // (reset after every message) instead of keeping ~256 KiB of zlib state per connection.
        if parameters.sendsWithoutContextTakeover(for: role),
           let shared = ThreadDeflaterCache.deflater(windowBits: parameters.sendingWindowBits(for: role),
                                                     level: options.compressionLevel, memoryLevel: options.memoryLevel) {
            return shared.compressMessage(payload, into: &compressed, resetAfter: true)
        }
        if deflater == nil {
            // Out of memory is not fatal here: RSV1 is optional, so the message goes uncompressed.
            deflater = try? ZlibDeflater(windowBits: parameters.sendingWindowBits(for: role), level: options.compressionLevel,
                                         memoryLevel: options.memoryLevel)
        }
        guard let deflater else { return false }
        return deflater.compressMessage(payload, into: &compressed, resetAfter: parameters.sendsWithoutContextTakeover(for: role))
    }

    public func decompress(_ payload: UnsafeRawBufferPointer, appendingTo message: inout [UInt8], limit: Int) -> WebSocketProtocolError? {
        guard payload.count > 0 else { return nil }
        let inflater: ZlibInflater
        if let existing = self.inflater {
            inflater = existing
        } else {
            do {
                inflater = try ZlibInflater(windowBits: parameters.receivingWindowBits(for: role))
            } catch {
                return WebSocketProtocolError(closeCode: .internalError, reason: "\(error)")
            }
            self.inflater = inflater
        }
        switch inflater.inflate(payload, appendingTo: &message, limit: limit) {
        case nil:
            return nil
        case .limitExceeded:
            // RFC 6455 §7.4.1: 1009, a message too big to process; §10.4 asks for exactly this limit.
            return WebSocketProtocolError(closeCode: .messageTooBig, reason: "decompressed message exceeds \(limit) bytes")
        case .corrupt(let why):
            // Data that does not inflate is inconsistent with the message type: 1007 (RFC 6455 §7.4.1).
            return WebSocketProtocolError(closeCode: .invalidPayload, reason: "invalid deflate data: \(why)")
        }
    }

    public func finishMessage(appendingTo message: inout [UInt8], limit: Int) -> WebSocketProtocolError? {
        // RFC 7692 §7.2.2: append 00 00 FF FF to the payload of the message before decompressing its end.
        let failed = withUnsafeBytes(of: Self.syncTail) { decompress($0, appendingTo: &message, limit: limit) }
        if failed == nil, parameters.receivesWithoutContextTakeover(for: role), let inflater {
            inflater.reset()
        }
        return failed
    }

    /// The empty stored block that ends a sync flush.
    private static let syncTail: (UInt8, UInt8, UInt8, UInt8) = (0x00, 0x00, 0xFF, 0xFF)
}

@available(*, unavailable, message: "A permessage-deflate context belongs to one connection on one event loop")
extension PerMessageDeflate: Sendable {}
