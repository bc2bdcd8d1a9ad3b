/// One receiver's whole run of events as the bytes it is sent: each event's head (WebSocket header and `{"seq":N,`)
/// and then its body, back to back. Kept from one receiver to the next, because receivers differ only in their seqs:
/// where a receiver's head for an event is the last receiver's, nothing is written; where it differs but has as many
/// bytes, only the head is copied over; from the first head of another length on, the rest of the run is written anew.
///
/// perf of a /sync group of 1,000 (32 messages a run): queueing a head chunk and a body chunk per event and receiver,
/// then gathering them for the send and letting them go, was ~11% of the server's CPU and the gather copy ~5%; here a
/// receiver whose seqs have as many digits as the last one's costs 32 head copies and one send.
struct FanOutRunBytes {
    private let buffer: UnsafeMutableRawBufferPointer
    /// Where each event's head starts, and its length, as the buffer holds them.
    private var offsets: [Int]
    private var headCounts: [Int]
    /// The bytes of the run the buffer holds; 0 until a run is written whole.
    private var count = 0
    /// Writing every event from here on (its heads' offsets moved, or nothing was written yet).
    private var rewriting = true
    private var cursor = 0

    /// The bytes a run needs at most: each event's longest head and its body.
    static func capacity(bodyCounts: some Sequence<Int>) -> Int {
        bodyCounts.reduce(0) { $0 + SequencedEvent.maxHeadSize + $1 }
    }

    /// `buffer`: at least ``capacity(bodyCounts:)`` bytes of the run's bodies, for as long as this value is used.
    init(buffer: UnsafeMutableRawBufferPointer, events: Int) {
        self.buffer = buffer
        offsets = Array(repeating: 0, count: events)
        headCounts = Array(repeating: -1, count: events)
    }

    /// What the buffer holds can no longer be trusted to match the heads (they were made for a receiver that did not
    /// come through here): the next receiver's run is written whole.
    mutating func forget() {
        count = 0
    }

    /// Starts the next receiver; then ``place(event:head:isNew:body:)`` for each event in order, then ``finish()``.
    mutating func begin() {
        rewriting = count == 0
        cursor = 0
    }

    /// Puts event `event`'s `head` and `body` in place. `isNew`: the head is not the one the buffer was last given for
    /// this event (``SequencedHead/make(seq:bodyCount:)`` made it anew).
    mutating func place(event: Int, head: UnsafeRawBufferPointer, isNew: Bool, body: UnsafeRawBufferPointer) {
        if !rewriting {
            guard isNew else { return }
            if head.count == headCounts[event] {
                copy(head, at: offsets[event])
                return
            }
            rewriting = true
            cursor = offsets[event]
        }
        offsets[event] = cursor
        headCounts[event] = head.count
        copy(head, at: cursor)
        cursor += head.count
        copy(body, at: cursor)
        cursor += body.count
    }

    /// The receiver's bytes, valid until the next ``begin()``.
    mutating func finish() -> UnsafeRawBufferPointer {
        if rewriting { count = cursor }
        return UnsafeRawBufferPointer(rebasing: buffer[..<count])
    }

    private func copy(_ bytes: UnsafeRawBufferPointer, at offset: Int) {
        guard let source = bytes.baseAddress, bytes.count > 0 else { return }
        (buffer.baseAddress! + offset).copyMemory(from: source, byteCount: bytes.count)
    }
}
