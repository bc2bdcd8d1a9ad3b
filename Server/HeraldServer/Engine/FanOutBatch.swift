import HeraldBytes
import HeraldNet

/// The loop side of ``HeraldHTTPServer/send(messages:)``: one batch's messages for one loop, each session's in the
/// batch's order.
///
/// A busy group's sync batch is ~30 stream events to the same 1,000 sessions, with each sender's answer between
/// them. Taken message by message, every write to a receiver began with cache misses on its connection and chunk list
/// (perf of a /sync group of 1,000: finding the receivers and queueing heads and bodies, a fifth of the loop's time,
/// for few instructions). Such a run goes receiver by receiver instead: each receiver's connection comes into the
/// cache once for all of the run.
enum FanOutBatch {
    typealias Entry = (message: FanOutMessage, sessions: [SessionHandle])

    /// Most sessions a message other than a sequenced event may have to join a run: each receiver of the run looks
    /// itself up in it (an answer has one).
    static let maxSessionsOfJoiningMessage = 4

    static func deliver(_ batch: [Entry], on loop: EventLoop) {
        var start = 0
        while start < batch.count {
            let end = endOfRun(in: batch, from: start)
            if end - start == 1 {
                HeraldHTTPServer.deliver(batch[start].message, to: batch[start].sessions, on: loop)
            } else {
                deliverByReceiver(batch[start..<end], on: loop)
            }
            start = end
        }
    }

    /// Where the run starting at `start` ends: a sequenced event, then every following sequenced event to the same
    /// sessions and every other message to a few of those sessions (answers to the senders); one message when the
    /// first is not a sequenced event. Every event of a run has one seq per session.
    static func endOfRun(in batch: [Entry], from start: Int) -> Int {
        let sessions = batch[start].sessions
        guard case .sequencedEvent(_, let seqs) = batch[start].message, seqs.count == sessions.count else { return start + 1 }
        var members: Set<SessionHandle>?
        var end = start + 1
        while end < batch.count {
            let entry = batch[end]
            if case .sequencedEvent(_, let seqs) = entry.message {
                guard seqs.count == sessions.count, entry.sessions == sessions else { break }
            } else {
                guard entry.sessions.count <= maxSessionsOfJoiningMessage else { break }
                let known = members ?? Set(sessions)
                members = known
                guard entry.sessions.allSatisfy(known.contains) else { break }
            }
            end += 1
        }
        return end
    }

    /// One message of a run as the receiver loop reads it: plain values only, so walking the run for each receiver
    /// counts no references (a copy of the batch entry per receiver and message counted four).
    private struct Column {
        /// An event: its pin, and its body's bytes (kept alive by the pin for the whole run); nil for another message.
        var pin: Unmanaged<LoopPinnedFrame>?
        var body = UnsafeRawBufferPointer(start: nil, count: 0)
        /// The event's last head, kept for the next receiver with the same seq (its place is given once the run's
        /// head buffer exists).
        var head = SequencedHead(place: UnsafeMutableRawBufferPointer(start: nil, count: 0))
        /// Another message: its position in the run, and its sessions' range in the run's flat list of them.
        var entry = 0
        var sessions = 0..<0
    }

    /// A run (``endOfRun(in:from:)``), receiver by receiver: each plain receiver gets its head and the pinned body of
    /// every event, and the run's other messages addressed to it, in the run's order. Receivers with
    /// permessage-deflate get the run message by message afterwards, so their compressed forms are still made once
    /// per message and configuration.
    private static func deliverByReceiver(_ run: ArraySlice<Entry>, on loop: EventLoop) {
        let sessions = run[run.startIndex].sessions
        // One pin per event body for this loop: the receivers' queues count it without atomic operations.
        var pins: [LoopPinnedFrame] = []
        var columns: [Column] = []
        var otherSessions: [SessionHandle] = []
        // Receiver-major seqs: receiver `p`'s seq for event column `c` at `p * eventCount + c`, read in order.
        let eventCount = run.reduce(0) { count, entry in
            if case .sequencedEvent = entry.message { count + 1 } else { count }
        }
        var seqs = [Int64](repeating: 0, count: eventCount * sessions.count)
        var event = 0
        for (offset, entry) in run.enumerated() {
            switch entry.message {
            case .sequencedEvent(let body, let eventSeqs):
                let pin = LoopPinnedFrame(body)
                pins.append(pin)
                columns.append(Column(pin: Unmanaged.passUnretained(pin), body: UnsafeRawBufferPointer(start: body.base, count: body.count)))
                for (position, seq) in eventSeqs.enumerated() { seqs[position * eventCount + event] = seq }
                event += 1
            case .frame, .answer:
                let first = otherSessions.count
                otherSessions += entry.sessions
                columns.append(Column(entry: run.startIndex + offset, sessions: first..<otherSessions.count))
            }
        }
        var compressed: [Int] = []
        // Held for the whole run: each receiver's queue is sent (and emptied) before the next one is queued.
        for pin in pins { pin.beginHold() }
        defer { for pin in pins { pin.endHold() } }
        let runBuffer = UnsafeMutableRawBufferPointer.allocate(
            byteCount: FanOutRunBytes.capacity(bodyCounts: columns.lazy.filter { $0.pin != nil }.map(\.body.count)), alignment: 8)
        defer { runBuffer.deallocate() }
        var runBytes = FanOutRunBytes(buffer: runBuffer, events: eventCount)
        withExtendedLifetime(pins) {
            seqs.withUnsafeBufferPointer { seqs in
                otherSessions.withUnsafeBufferPointer { otherSessions in
                    let headSize = SequencedEvent.maxHeadSize
                    withUnsafeTemporaryAllocation(byteCount: headSize * columns.count, alignment: 1) { heads in
                        for index in columns.indices {
                            columns[index].head = SequencedHead(place: UnsafeMutableRawBufferPointer(rebasing: heads[(index * headSize)..<((index + 1) * headSize)]))
                        }
                        for (position, handle) in sessions.enumerated() {
                            // Lent uncounted for the whole receiver: connections close only after the batch.
                            loop.unownedConnection(for: handle.connection)?._withUnsafeGuaranteedRef { connection in
                                // A plain session keeps `takesSharedFrames` true until it writes its close.
                                guard connection.takesSharedFrames else { return compressed.append(position) }
                                var event = position * eventCount
                                if !columns.indices.contains(where: { index in
                                    columns[index].pin == nil && otherSessions[columns[index].sessions].contains(handle)
                                }) {
                                    // Only events for this receiver (all but the senders): its run in one buffer, one send.
                                    runBytes.begin()
                                    var ordinal = 0
                                    for index in columns.indices where columns[index].pin != nil {
                                        let isNew = columns[index].head.make(seq: seqs[event], bodyCount: columns[index].body.count)
                                        event += 1
                                        runBytes.place(event: ordinal, head: columns[index].head.bytes, isNew: isNew, body: columns[index].body)
                                        ordinal += 1
                                    }
                                    loop.writeNow(runBytes.finish(), on: connection)
                                    return
                                }
                                // The heads below are made without the run's buffer, which then no longer matches them.
                                runBytes.forget()
                                for index in columns.indices {
                                    guard let pin = columns[index].pin else {
                                        if otherSessions[columns[index].sessions].contains(handle) {
                                            HeraldHTTPServer.deliver(run[columns[index].entry].message, to: [handle], on: loop)
                                        }
                                        continue
                                    }
                                    _ = columns[index].head.make(seq: seqs[event], bodyCount: columns[index].body.count)
                                    event += 1
                                    pin._withUnsafeGuaranteedRef { columns[index].head.write(to: connection, pinned: $0) }
                                }
                                // The receiver has all of the run: it can read while the loop serves the others.
                                loop.flushEarly(connection)
                            }
                        }
                    }
                }
            }
        }
        guard !compressed.isEmpty else { return }
        let others = Set(compressed.map { sessions[$0] })
        for entry in run {
            switch entry.message {
            case .sequencedEvent(let body, let seqs):
                SequencedEvent.deliver(body: body, seqs: compressed.map { seqs[$0] }, to: compressed.map { sessions[$0] }, on: loop)
            case .frame, .answer:
                HeraldHTTPServer.deliver(entry.message, to: entry.sessions.filter(others.contains), on: loop)
            }
        }
    }
}
