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
    /// Joining messages of one run checked by a scan of its sessions before they are put in a set.
    static let maxScannedJoiningMessages = 2

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
        var joined = 0
        var end = start + 1
        while end < batch.count {
            let entry = batch[end]
            if case .sequencedEvent(_, let seqs) = entry.message {
                guard seqs.count == sessions.count, entry.sessions == sessions else { break }
            } else {
                guard entry.sessions.count <= maxSessionsOfJoiningMessage else { break }
                // The first few joining messages (a run's answers to its senders, usually one) look along the sessions:
                // hashing every session of a group of 200 into a set cost ~45 instructions a delivery.
                joined += 1
                if joined <= maxScannedJoiningMessages {
                    guard entry.sessions.allSatisfy(sessions.contains) else { break }
                } else {
                    let known = members ?? Set(sessions)
                    members = known
                    guard entry.sessions.allSatisfy(known.contains) else { break }
                }
            }
            end += 1
        }
        return end
    }

    /// A run (``endOfRun(in:from:)``), receiver by receiver: each plain receiver gets its head and the pinned body of
    /// every event, and the run's other messages addressed to it, in the run's order (``FanOutReceiverRun``). Receivers
    /// with permessage-deflate get the run message by message afterwards, so their compressed forms are still made once
    /// per message and configuration.
    private static func deliverByReceiver(_ run: ArraySlice<Entry>, on loop: EventLoop) {
        let sessions = run[run.startIndex].sessions
        var receiverRun = FanOutReceiverRun(run)
        var compressed: [Int] = []
        for (position, handle) in sessions.enumerated() {
            // Lent uncounted for the whole receiver: connections close only after the batch.
            loop.unownedConnection(for: handle)?._withUnsafeGuaranteedRef { connection in
                // A plain session keeps `takesSharedFrames` true until it writes its close.
                guard connection.takesSharedFrames else { return compressed.append(position) }
                receiverRun.deliver(toReceiver: position, handle, on: connection, loop: loop)
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
