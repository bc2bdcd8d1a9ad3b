import HeraldBytes
import HeraldNet

/// A run of a sync batch (``FanOutBatch/endOfRun(in:from:)``) laid out to be walked receiver by receiver: one column
/// per message, every receiver's seqs in the order they are read, a head buffer per event and the bytes of the last
/// receiver's run (``FanOutRunBytes``). Made once per run; ``deliver(toReceiver:_:on:loop:)`` then costs no reference
/// counting and no allocation per receiver (copies of the batch entry per receiver and message counted four references).
///
/// Everything it points into stays alive until it is dropped: the event bodies are pinned and held for the run (each
/// receiver's queue may be sent and emptied before the next one's is filled), the rest is its own memory.
struct FanOutReceiverRun: ~Copyable {
    /// One message of the run: plain values only.
    private struct Column {
        /// An event: its pin, and its body's bytes (kept alive by the pin); nil for another message.
        var pin: Unmanaged<LoopPinnedFrame>?
        var body = UnsafeRawBufferPointer(start: nil, count: 0)
        /// The event's last head, kept for the next receiver with the same seq.
        var head = SequencedHead(place: UnsafeMutableRawBufferPointer(start: nil, count: 0))
        /// Another message: its position in the run, and its sessions' range in ``otherSessions``.
        var entry = 0
        var sessions = 0..<0
    }

    private let run: ArraySlice<FanOutBatch.Entry>
    /// One pin per event body for this loop: the receivers' queues count it without atomic operations.
    private let pins: [LoopPinnedFrame]
    private let columns: UnsafeMutableBufferPointer<Column>
    /// Receiver-major: receiver `p`'s seq for the `e`th event at `p * eventCount + e`.
    private let seqs: UnsafeMutableBufferPointer<Int64>
    private let eventCount: Int
    /// The sessions of the run's other messages (answers to the senders), each message's in its column's range.
    private let otherSessions: UnsafeMutableBufferPointer<SessionHandle>
    private let heads: UnsafeMutableRawBufferPointer
    private let runBuffer: UnsafeMutableRawBufferPointer
    private var runBytes: FanOutRunBytes

    init(_ run: ArraySlice<FanOutBatch.Entry>) {
        self.run = run
        let receivers = run[run.startIndex].sessions.count
        var pins: [LoopPinnedFrame] = []
        var columns: [Column] = []
        var others: [SessionHandle] = []
        var eventSeqs: [[Int64]] = []
        for (offset, entry) in run.enumerated() {
            switch entry.message {
            case .sequencedEvent(let body, let seqs):
                let pin = LoopPinnedFrame(body)
                pins.append(pin)
                columns.append(Column(pin: Unmanaged.passUnretained(pin), body: UnsafeRawBufferPointer(start: body.base, count: body.count)))
                eventSeqs.append(seqs)
            case .frame, .answer:
                let first = others.count
                others += entry.sessions
                columns.append(Column(entry: run.startIndex + offset, sessions: first..<others.count))
            }
        }
        let eventCount = eventSeqs.count
        seqs = .allocate(capacity: eventCount * receivers)
        for (event, eventSeqs) in eventSeqs.enumerated() {
            for (position, seq) in eventSeqs.enumerated() { seqs[position * eventCount + event] = seq }
        }
        let headSize = SequencedEvent.maxHeadSize
        heads = .allocate(byteCount: headSize * columns.count, alignment: 8)
        for index in columns.indices {
            columns[index].head = SequencedHead(place: UnsafeMutableRawBufferPointer(rebasing: heads[(index * headSize)..<((index + 1) * headSize)]))
        }
        self.columns = .allocate(capacity: columns.count)
        _ = self.columns.initialize(from: columns)
        otherSessions = .allocate(capacity: others.count)
        _ = otherSessions.initialize(from: others)
        runBuffer = .allocate(byteCount: FanOutRunBytes.capacity(bodyCounts: columns.lazy.filter { $0.pin != nil }.map(\.body.count)), alignment: 8)
        runBytes = FanOutRunBytes(buffer: runBuffer, events: eventCount)
        self.eventCount = eventCount
        self.pins = pins
        for pin in pins { pin.beginHold() }
    }

    deinit {
        for pin in pins { pin.endHold() }
        columns.deallocate()
        seqs.deallocate()
        otherSessions.deallocate()
        heads.deallocate()
        runBuffer.deallocate()
    }

    /// Gives the receiver at `position` among the run's sessions everything of the run addressed to it, in order, on
    /// its plain (uncompressed) `connection`.
    mutating func deliver(toReceiver position: Int, _ handle: SessionHandle, on connection: Connection, loop: EventLoop) {
        if receivesOnlyEvents(handle) {
            sendEvents(toReceiver: position, on: connection, loop: loop)
        } else {
            queueEventsAndOthers(toReceiver: position, handle, on: connection, loop: loop)
        }
    }

    /// Whether none of the run's other messages is addressed to `handle` (every receiver but the senders).
    private func receivesOnlyEvents(_ handle: SessionHandle) -> Bool {
        !columns.contains { $0.pin == nil && otherSessions[$0.sessions].contains(handle) }
    }

    /// The receiver's run in one buffer and one send: only the heads that differ from the last receiver's are copied.
    private mutating func sendEvents(toReceiver position: Int, on connection: Connection, loop: EventLoop) {
        runBytes.begin()
        var event = 0
        for index in columns.indices where columns[index].pin != nil {
            let isNew = columns[index].head.make(seq: seqs[position * eventCount + event], bodyCount: columns[index].body.count)
            runBytes.place(event: event, head: columns[index].head.bytes, isNew: isNew, body: columns[index].body)
            event += 1
        }
        loop.writeNow(runBytes.finish(), on: connection)
    }

    /// Queues the run message by message (a sender gets its answer between the events), then sends what it can: the
    /// receiver has all of the run and can read while the loop serves the others.
    private mutating func queueEventsAndOthers(toReceiver position: Int, _ handle: SessionHandle, on connection: Connection, loop: EventLoop) {
        // The heads below are made without the run's buffer, which then no longer matches them.
        runBytes.forget()
        var event = 0
        for index in columns.indices {
            guard let pin = columns[index].pin else {
                if otherSessions[columns[index].sessions].contains(handle) {
                    HeraldHTTPServer.deliver(run[columns[index].entry].message, to: [handle], on: loop)
                }
                continue
            }
            _ = columns[index].head.make(seq: seqs[position * eventCount + event], bodyCount: columns[index].body.count)
            event += 1
            pin._withUnsafeGuaranteedRef { columns[index].head.write(to: connection, pinned: $0) }
        }
        loop.flushEarly(connection)
    }
}
