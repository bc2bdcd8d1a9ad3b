import Foundation
import HeraldSync

/// The sync thread's inbox: loop threads post session events, the sync thread takes them in batches.
///
/// A mutex plus a condition: `post` never blocks for long (append + signal), `take` sleeps until work
/// arrives, a timer is due or the inbox is stopped, and then hands over what is queued, up to ``maxBatch``
/// inputs, so the sync thread commits a batch in one transaction: however much arrives at once, one
/// transaction and one fan-out stay bounded, and a burst cannot hold back everyone else's answers for long.
final class SyncInbox<Device: Hashable & Sendable>: @unchecked Sendable {
    // @unchecked: every field is only touched with `condition` locked.
    private let condition = NSCondition()
    private var queue: [SyncInput<Device>] = []
    private var stopped = false
    /// Most inputs one ``take(deadline:)`` hands over.
    let maxBatch: Int

    init(maxBatch: Int = 4_096) {
        self.maxBatch = max(maxBatch, 1)
    }

    /// Queues one input (any thread).
    func post(_ input: SyncInput<Device>) {
        condition.lock()
        queue.append(input)
        condition.signal()
        condition.unlock()
    }

    /// Queues one input without waking the taker: the caller calls ``wake()`` once it has queued everything it has at
    /// hand (a loop thread, once per pass: woken at its first message, the sync thread would take that one alone and,
    /// sharing the loop's core, stop the loop from reading the rest).
    func postQuietly(_ input: SyncInput<Device>) {
        condition.lock()
        queue.append(input)
        condition.unlock()
    }

    /// Wakes the taker if it waits (any thread).
    func wake() {
        condition.lock()
        condition.signal()
        condition.unlock()
    }

    /// Wakes the taker for good; inputs queued before still come out.
    func stop() {
        condition.lock()
        stopped = true
        condition.broadcast()
        condition.unlock()
    }

    /// Waits until there is input, `deadline` (ms since the epoch) passes or the inbox stops, and returns
    /// what is queued (at most ``maxBatch``, oldest first) plus whether the inbox was stopped with nothing left.
    func take(deadline: Int64) -> (inputs: [SyncInput<Device>], stopped: Bool) {
        condition.lock()
        defer { condition.unlock() }
        while queue.isEmpty && !stopped {
            let nowMs = Int64(Date().timeIntervalSince1970 * 1000)
            if deadline <= nowMs { break }
            // Cap the sleep so a far deadline (.max) still wakes now and then.
            let wait = min(deadline - nowMs, 60_000)
            _ = condition.wait(until: Date(timeIntervalSinceNow: Double(wait) / 1000))
        }
        if queue.count <= maxBatch {
            let inputs = queue
            // A fresh list, grown by the posts of the next batch: `inputs` shares this one's buffer, so keeping its
            // capacity meant allocating a copy of it here, and kept a burst's high-water mark (a reconnect storm's
            // thousands of inputs, 1.4 MB after 10,000 connects) for good.
            queue = []
            return (inputs, stopped)
        }
        let inputs = Array(queue.prefix(maxBatch))
        queue.removeFirst(maxBatch)
        return (inputs, false)
    }
}
