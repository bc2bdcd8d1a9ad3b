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

/// The `{"seq":N,` splice of a ``FanOutMessage/sequencedEvent(body:seqs:)`` on the loop side: each receiver's head
/// (the frame header for the whole payload, then `{"seq":N,`) in front of the event body all receivers share.
enum SequencedEvent {
    /// Largest head: a 10-byte WebSocket header and the longest `{"seq":N,`.
    static let maxHeadSize = 10 + EventFrame.maxSequencePrefixSize

    /// Writes the unmasked text frame header for the whole payload, then `{"seq":N,`, into `buffer` (at least
    /// ``maxHeadSize`` bytes) and returns the head's length and its header's; zeros if `buffer` is too short.
    static func writeHead(seq: Int64, bodyCount: Int, into buffer: UnsafeMutableRawBufferPointer) -> (count: Int, headerSize: Int) {
        guard buffer.count >= maxHeadSize, let base = buffer.baseAddress else { return (0, 0) }
        // The prefix goes after the longest header first, to learn its length; then it moves next to the real header.
        let prefix = EventFrame.writeSequencePrefix(seq, into: UnsafeMutableRawBufferPointer(rebasing: buffer[10...]))
        let header = FrameEncoder.writeHeader(opcode: .text, payloadLength: prefix + bodyCount, into: buffer)
        if header < 10 { memmove(base + header, base + 10, prefix) }  // the ranges may overlap
        return (header + prefix, header)
    }

    /// Queues the event on `sessions` (loop thread): each receiver's head is written on the stack (once per run of
    /// receivers with the same seq, the devices of one user) and copied into each plain session's queue; the body is
    /// queued by reference, pinned once for this loop (``LoopPinnedFrame``). A whole frame is built only for a session
    /// that negotiated permessage-deflate (then once per seq, and deflated once per configuration as for any frame).
    static func deliver(body: SharedBytes, seqs: [Int64], to sessions: [SessionHandle], on loop: EventLoop) {
        // One pin of the body for this loop: its receivers' queues count it without atomic operations.
        let pinned = LoopPinnedFrame(body)
        withUnsafeTemporaryAllocation(byteCount: maxHeadSize, alignment: 1) { buffer in
            var head = SequencedHead(place: buffer)
            var fanOut: FanOutFrame?
            for (handle, seq) in zip(sessions, seqs) {
                guard let connection = loop.unownedConnection(for: handle) else { continue }
                if head.make(seq: seq, bodyCount: body.count) { fanOut = nil }
                // A plain session (most): straight into its connection's queue, no reference counted on the way. The
                // session keeps `takesSharedFrames` true while it is plain and has not written its close.
                let queued = connection._withUnsafeGuaranteedRef { connection in
                    guard connection.takesSharedFrames else { return false }
                    head.write(to: connection, pinned: pinned)
                    return true
                }
                if queued { continue }
                // Left: sessions with permessage-deflate. A plain one that takes no shared frames has written its close.
                guard let session = HeraldHTTPServer.session(handle, on: loop), !session.sendsPlainFrames else { continue }
                var whole = fanOut ?? FanOutFrame(OutgoingFrame(textHead: head.bytes, headerSize: head.headerSize, body: body))
                session.send(&whole)
                fanOut = whole
            }
        }
    }
}

/// A receiver's head for one event (``SequencedEvent/writeHead(seq:bodyCount:into:)``), kept in its own place and made
/// again only when the seq changes: the devices of one user, and group members who received the same events before,
/// share it, and with it the same bytes made once to be kept in each queue's chunk.
struct SequencedHead {
    private let place: UnsafeMutableRawBufferPointer
    private var seq: Int64?
    /// The head's bytes: the WebSocket header, then `{"seq":N,`.
    private(set) var bytes = UnsafeRawBufferPointer(start: nil, count: 0)
    /// The WebSocket header's share of ``bytes``.
    private(set) var headerSize = 0
    /// ``bytes`` as a queue keeps them in a chunk (nil when they do not fit).
    private var inline: InlineBytes?

    /// `place`: at least ``SequencedEvent/maxHeadSize`` bytes, for as long as this head is used.
    init(place: UnsafeMutableRawBufferPointer) { self.place = place }

    /// Makes the head for `seq` unless it is the one already made; true when it was made anew.
    mutating func make(seq: Int64, bodyCount: Int) -> Bool {
        guard seq != self.seq else { return false }
        let head = SequencedEvent.writeHead(seq: seq, bodyCount: bodyCount, into: place)
        self.seq = seq
        bytes = UnsafeRawBufferPointer(rebasing: place[..<head.count])
        headerSize = head.headerSize
        inline = InlineBytes(bytes)
        return true
    }

    /// Queues the head and then the event's body, `pinned` by this loop, on a plain connection.
    func write(to connection: Connection, pinned: LoopPinnedFrame) {
        connection.write(head: bytes, inline: inline, pinned: pinned)
    }
}
