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
    /// The frame's bytes, kept as plain values so that queueing the frame does not load (retain and release) `frame`.
    let base: UnsafeRawPointer
    let count: Int
    /// Chunks in this loop's queues that name it.
    private var chunks = 0

    public init(_ frame: SharedBytes) {
        self.frame = frame
        base = frame.base
        count = frame.count
    }

    /// Counts the caller as one more holder until ``endHold()``. A fan-out that sends each receiver's queue before it
    /// queues the next receiver's (``EventLoop/flushEarly(_:)``) empties every queue that named the frame in between, so
    /// without a hold the frame was let go with each receiver's send and taken back with the next one's write: the two
    /// atomic operations per delivery this type exists to spare (perf of a /sync group of 1,000: `swift_retain` and
    /// `swift_release` under the queue's append and consume, 11% of the loop's samples).
    public func beginHold() { _ = pin() }

    /// Ends a ``beginHold()``; the frame goes once no queue names it either.
    public func endHold() { Self.unpin(Unmanaged.passUnretained(self)) }

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
