import CZlib

/// A `z_stream` at a fixed heap address for its whole life, because zlib keeps a pointer back to it
/// (`strm->state->strm`) and a Swift value could move. Shared by ``ZlibDeflater`` and ``ZlibInflater``.
enum PinnedZlibStream {
    /// A zeroed stream set up by `initialize` (`deflateInit2` or `inflateInit2`, named `function` in the error);
    /// freed again if that fails.
    static func make(_ function: String, initialize: (UnsafeMutablePointer<z_stream>) -> Int32)
        throws(PerMessageDeflateError) -> UnsafeMutablePointer<z_stream> {
        let stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
        stream.initialize(to: z_stream())
        let result = initialize(stream)
        guard result == Z_OK else {
            stream.deinitialize(count: 1)
            stream.deallocate()
            throw .zlib(function: function, code: result)
        }
        return stream
    }

    /// Ends the stream with `end` (`deflateEnd` or `inflateEnd`) and frees it.
    static func free(_ stream: UnsafeMutablePointer<z_stream>, end: (UnsafeMutablePointer<z_stream>) -> Int32) {
        _ = end(stream)
        stream.deinitialize(count: 1)
        stream.deallocate()
    }
}
