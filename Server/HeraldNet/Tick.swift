import CLinux
import Glibc
import HeraldClock

/// A point on the monotonic clock in milliseconds (CLOCK_MONOTONIC, so wall-clock jumps never fire
/// or postpone a deadline). Handlers store deadlines as ticks and compare them to `EventLoop.now`.
public struct Tick: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// Milliseconds since an arbitrary fixed point (boot); only differences are meaningful.
    public var milliseconds: Int64

    /// Creates a tick at `milliseconds` on the monotonic clock.
    @inlinable public init(milliseconds: Int64) {
        self.milliseconds = milliseconds
    }

    /// Reads the monotonic clock now. Loops cache this once per wakeup as `EventLoop.now`.
    public static func monotonicNow() -> Tick {
        Tick(milliseconds: MonotonicClock.milliseconds())
    }

    /// The tick `milliseconds` later than this one (earlier when negative).
    public func adding(milliseconds delta: Int64) -> Tick {
        Tick(milliseconds: milliseconds &+ delta)
    }

    /// Milliseconds from `earlier` to this tick (negative if `earlier` is later).
    public func milliseconds(since earlier: Tick) -> Int64 {
        milliseconds &- earlier.milliseconds
    }

    public static func < (lhs: Tick, rhs: Tick) -> Bool { lhs.milliseconds < rhs.milliseconds }

    public var description: String { "\(milliseconds)ms" }
}
