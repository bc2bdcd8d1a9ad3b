/// A negotiated per-message compression extension (RFC 7692 §6), as ``WebSocketStateMachine`` sees it.
///
/// The state machine owns the framing rules: RSV1 ("Per-Message Compressed") is accepted only on the first frame of a
/// data message, never on a continuation or control frame (§6, §6.1); the extension owns the bytes. Implemented by
/// `HeraldDeflate.PerMessageDeflate`; HeraldWebSocket itself contains no compression code.
///
/// The state machine feeds a compressed message's payload in as it arrives (already unmasked), so the message-size
/// limit is enforced on the *decompressed* size while decompressing, and text is UTF-8 validated as it comes out.
///
/// ```swift
/// let deflate = PerMessageDeflate(parameters: accepted, role: .server)
/// var machine = WebSocketStateMachine(role: .server, limits: limits, compression: deflate)
/// ```
public protocol PerMessageCompression: AnyObject {
    /// Decompresses the next piece of a compressed message's payload and appends the output to `message`.
    ///
    /// - Parameters:
    ///   - payload: unmasked payload bytes of the message's frames, in order, in any chunking.
    ///   - message: the message reassembled so far; output is appended.
    ///   - limit: the largest decompressed message allowed. Implementations stop decompressing as soon as the
    ///     running total would pass it, so a compression bomb costs at most about `limit` bytes.
    /// - Returns: `nil`, or the error that fails the connection (1009 over `limit`, 1007 for corrupt data).
    func decompress(_ payload: UnsafeRawBufferPointer, appendingTo message: inout [UInt8], limit: Int) -> WebSocketProtocolError?

    /// The compressed message's final frame has been fed: flush what is left (RFC 7692 §7.2.2) and append it.
    ///
    /// Same parameters and result as ``decompress(_:appendingTo:limit:)``.
    func finishMessage(appendingTo message: inout [UInt8], limit: Int) -> WebSocketProtocolError?

    /// Compresses a whole outgoing message.
    ///
    /// - Parameters:
    ///   - payload: the message's bytes.
    ///   - compressed: a reusable buffer; on `true` it holds exactly the compressed payload to send with RSV1 set.
    /// - Returns: `false` to send the message uncompressed with RSV1 clear (e.g. it is below a size threshold).
    func compress(_ payload: UnsafeRawBufferPointer, into compressed: inout [UInt8]) -> Bool
}
