import CZlib

/// A raw-deflate compressor that emits one message at a time, flushed to a byte boundary (RFC 7692 §7.2.1).
///
/// The `z_stream` is pinned on the heap (``PinnedZlibStream``); `deinit` calls `deflateEnd`.
final class ZlibDeflater {
    private let stream: UnsafeMutablePointer<z_stream>
    /// The window size in bits this compressor was created with.
    let windowBits: Int

    /// Starts a raw deflate stream (negative windowBits: no zlib header or trailer, RFC 7692 §7.2.1).
    ///
    /// - Parameters:
    ///   - windowBits: 9...15. zlib refuses 8 for raw deflate, so negotiation never agrees to it for our compressor.
    ///   - level: 0...9 or -1 (zlib's default, 6).
    ///   - memoryLevel: 1...9; the compressor's hash tables take 2^(memoryLevel+9) bytes.
    init(windowBits: Int, level: Int32, memoryLevel: Int32) throws(PerMessageDeflateError) {
        self.windowBits = windowBits
        stream = try PinnedZlibStream.make("deflateInit2") {
            czlib_deflateInit2($0, level, Z_DEFLATED, -Int32(windowBits), memoryLevel, Z_DEFAULT_STRATEGY)
        }
    }

    deinit {
        PinnedZlibStream.free(stream, end: deflateEnd)
    }

    /// Compresses one whole message into `output` (replacing its contents) and strips the trailing
    /// `00 00 FF FF` that the sync flush ends with (RFC 7692 §7.2.1).
    ///
    /// - Parameter resetAfter: reset the context afterwards (no context takeover, RFC 7692 §7.1.1), so the next
    ///   message refers to nothing before it.
    /// - Returns: `false` if zlib reported an error (the caller then sends the message uncompressed).
    func compressMessage(_ payload: UnsafeRawBufferPointer, into output: inout [UInt8], resetAfter: Bool) -> Bool {
        output.removeAll(keepingCapacity: true)
        // deflateBound covers a complete stream; the sync flush adds at most an empty stored block (5 bytes).
        let bound = Int(deflateBound(stream, uLong(payload.count))) + 16
        output.append(contentsOf: repeatElement(0, count: bound))
        var written = 0
        stream.pointee.next_in = UnsafeMutablePointer(mutating: payload.baseAddress?.assumingMemoryBound(to: Bytef.self))
        stream.pointee.avail_in = uInt(payload.count)
        var succeeded = true
        while true {
            if output.count - written < 64 { output.append(contentsOf: repeatElement(0, count: max(1024, output.count))) }
            let (result, room, left) = output.withUnsafeMutableBytes { buffer -> (Int32, Int, Int) in
                let room = buffer.count - written
                stream.pointee.next_out = buffer.baseAddress!.advanced(by: written).assumingMemoryBound(to: Bytef.self)
                stream.pointee.avail_out = uInt(room)
                let result = deflate(stream, Z_SYNC_FLUSH)
                return (result, room, Int(stream.pointee.avail_out))
            }
            written += room - left
            // Z_BUF_ERROR: nothing left to do (the previous call filled the buffer exactly).
            if result == Z_BUF_ERROR { break }
            guard result == Z_OK else {
                succeeded = false
                break
            }
            if left > 0 { break }  // all input consumed and flushed
        }
        stream.pointee.next_in = nil
        stream.pointee.next_out = nil
        output.removeSubrange(written...)
        // RFC 7692 §7.2.1: remove the 4 octets 00 00 FF FF at the tail end.
        if succeeded, output.count >= 4, output[output.count - 4] == 0, output[output.count - 3] == 0,
           output[output.count - 2] == 0xFF, output[output.count - 1] == 0xFF {
            output.removeLast(4)
        } else {
            succeeded = false
        }
        if resetAfter || !succeeded { deflateReset(stream) }
        return succeeded
    }
}
