import CZlib

/// A raw-inflate decompressor with a hard cap on its output (the compression-bomb guard of RFC 7692 §8.1).
///
/// The `z_stream` is pinned on the heap (``PinnedZlibStream``); `deinit` calls `inflateEnd`.
final class ZlibInflater {
    /// Why inflating stopped early.
    enum Failure: Error {
        /// The output would pass the limit; nothing beyond limit + 1 bytes was produced.
        case limitExceeded
        /// The input is not valid deflate data (zlib's message, if any).
        case corrupt(String)
    }

    private let stream: UnsafeMutablePointer<z_stream>
    /// Output is produced in steps of at most this many bytes, each checked against the limit.
    static let chunkSize = 16 << 10
    /// Bytes produced over the stream's life (diagnostics and the bomb test).
    private(set) var totalProduced = 0

    /// Starts a raw inflate stream with a window of 2^windowBits (8...15) bytes.
    init(windowBits: Int) throws(PerMessageDeflateError) {
        stream = try PinnedZlibStream.make("inflateInit2") { czlib_inflateInit2($0, -Int32(windowBits)) }
    }

    deinit {
        PinnedZlibStream.free(stream, end: inflateEnd)
    }

    /// Inflates `input` and appends the output to `output`, which may grow to at most `limit` bytes.
    ///
    /// Output space handed to zlib never exceeds `limit + 1 - output.count`, so however much the input would
    /// expand, at most one byte beyond the limit is ever produced before this returns ``Failure/limitExceeded``.
    func inflate(_ input: UnsafeRawBufferPointer, appendingTo output: inout [UInt8], limit: Int) -> Failure? {
        guard input.count > 0 else { return nil }
        stream.pointee.next_in = UnsafeMutablePointer(mutating: input.baseAddress?.assumingMemoryBound(to: Bytef.self))
        stream.pointee.avail_in = uInt(input.count)
        defer {
            stream.pointee.next_in = nil
            stream.pointee.next_out = nil
        }
        var count = output.count
        while true {
            // Small inputs get small steps (deflate expands ~1000x at most), so byte-at-a-time input does not
            // zero-fill 16 KiB per call; the loop continues while zlib fills the space it was given.
            let room = min(Self.chunkSize, limit + 1 - count, max(1024, input.count * 8))
            if room <= 0 { return .limitExceeded }
            output.append(contentsOf: repeatElement(0, count: room))
            let (result, left) = output.withUnsafeMutableBytes { buffer -> (Int32, Int) in
                stream.pointee.next_out = buffer.baseAddress!.advanced(by: count).assumingMemoryBound(to: Bytef.self)
                stream.pointee.avail_out = uInt(room)
                let result = CZlib.inflate(stream, Z_SYNC_FLUSH)
                return (result, Int(stream.pointee.avail_out))
            }
            let produced = room - left
            count += produced
            totalProduced += produced
            output.removeSubrange(count...)
            if count > limit { return .limitExceeded }
            switch result {
            case Z_OK:
                break
            case Z_STREAM_END:
                // The peer ended a block with BFINAL (RFC 7692 §7.2.3.3 allows it); what follows starts a new stream.
                inflateReset(stream)
            case Z_BUF_ERROR:
                return nil  // no progress possible: all input consumed and all output delivered
            default:
                let message = stream.pointee.msg.map { String(cString: $0) } ?? "zlib error \(result)"
                inflateReset(stream)
                return .corrupt(message)
            }
            if stream.pointee.avail_in == 0 && left > 0 { return nil }
        }
    }

    /// Forgets the window (the peer does not take context over, RFC 7692 §7.1.1).
    func reset() { inflateReset(stream) }
}
