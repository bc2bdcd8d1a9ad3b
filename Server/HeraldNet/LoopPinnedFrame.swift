import HeraldBytes

/// A shared frame lent to the write queues of one loop, for a fan-out to many of its connections.
///
/// A ``SharedBytes`` in a queue is a reference counted per receiver: two atomic operations per delivery, and each one
/// waits for the stores before it (the receiver's head, just copied into its own cold block) to reach the cache. perf
/// of a /sync fan-out to 1,000 put that one retain at 6% of the loop's CPU. Here the chunks that name the frame are
/// counted with a plain integer instead, which only this loop touches, and together they hold ONE reference: taken
/// when the first chunk names it, given back when the last one is gone.
///
/// Loop-confined: made by a task on the loop that queues it, and never handed to another loop (each loop pins the
/// same `SharedBytes` in a pin of its own).
public final class LoopPinnedFrame {
    let frame: SharedBytes
    /// Chunks in this loop's queues that name it.
    private var chunks = 0

    public init(_ frame: SharedBytes) {
        self.frame = frame
    }

    var count: Int { frame.count }

    /// Counts one more chunk naming it and returns the uncounted reference the chunk keeps.
    @inline(__always)
    func pin() -> Unmanaged<LoopPinnedFrame> {
        let pinned = Unmanaged.passUnretained(self)
        if chunks == 0 { _ = pinned.retain() }
        chunks += 1
        return pinned
    }

    /// A chunk that named `pinned` is gone; the last one lets the frame go.
    @inline(__always)
    static func unpin(_ pinned: Unmanaged<LoopPinnedFrame>) {
        let wasLast = pinned._withUnsafeGuaranteedRef { frame -> Bool in
            frame.chunks -= 1
            return frame.chunks == 0
        }
        if wasLast { pinned.release() }
    }
}

@available(*, unavailable, message: "A pinned frame is counted by one loop only")
extension LoopPinnedFrame: Sendable {}
