import Glibc
import HeraldBytes
import HeraldNet
import HeraldProtocol
import HeraldWebSocket

/// One message of a fan-out batch (``HeraldHTTPServer/send(messages:)``).
public enum FanOutMessage: Sendable {
    /// A complete server frame, the same bytes for every receiver.
    case frame(OutgoingFrame)
    /// A /sync stream event for several users: receiver `i` (the `i`th session of the batch entry) gets the text
    /// message `{"seq":seqs[i],` followed by `body`, the event's JSON without its leading `{`
    /// (``EventFrame/encodeBody()`` minus its first byte), shared by every receiver.
    ///
    /// Plain sessions get a small head of their own (the WebSocket header for the whole length and `{"seq":N,`) and
    /// `body` by reference, gathered into the same `sendmsg`: no per-receiver copy of the body. A compressed payload
    /// differs per seq (deflate runs over the seq too), so sessions with permessage-deflate get the frame built
    /// once per seq and loop, and deflated once per configuration as for ``frame(_:)``.
    case sequencedEvent(body: SharedBytes, seqs: [Int64])
    /// A complete frame like ``frame(_:)`` that answers one request of each receiving session: once it is queued, the
    /// session may read another request (``WebSocketSession/limitUnansweredRequests(to:)``).
    case answer(OutgoingFrame)
}

/// The per-receiver head of a ``FanOutMessage/sequencedEvent(body:seqs:)`` frame.
enum SequencedEventHead {
    /// Largest head: a 10-byte WebSocket header and the longest `{"seq":N,`.
    static let maxSize = 10 + EventFrame.maxSequencePrefixSize

    /// Writes the unmasked text frame header for the whole payload, then `{"seq":N,`, into `buffer` (at least
    /// ``maxSize`` bytes) and returns the head's length and its header's; zeros if `buffer` is too short.
    static func write(seq: Int64, bodyCount: Int, into buffer: UnsafeMutableRawBufferPointer) -> (count: Int, headerSize: Int) {
        guard buffer.count >= maxSize, let base = buffer.baseAddress else { return (0, 0) }
        // The prefix goes after the longest header first, to learn its length; then it moves next to the real header.
        let prefix = EventFrame.writeSequencePrefix(seq, into: UnsafeMutableRawBufferPointer(rebasing: buffer[10...]))
        let header = FrameEncoder.writeHeader(opcode: .text, payloadLength: prefix + bodyCount, into: buffer)
        if header < 10 { memmove(base + header, base + 10, prefix) }  // the ranges may overlap
        return (header + prefix, header)
    }
}
