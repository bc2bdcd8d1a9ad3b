import Glibc

/// The one clock every Herald process reads for durations and deadlines: CLOCK_MONOTONIC, so wall-clock jumps never
/// fire or postpone a timer. Only differences between two readings of one process mean anything.
///
/// The server's loops cache a reading per wake-up (`Tick`), the client hands readings to the pure rules as
/// `HeraldRules.Instant`, and the load generator timestamps sends with it; all three read this clock.
public enum MonotonicClock {
    /// Nanoseconds since an arbitrary fixed point (boot).
    public static func nanoseconds() -> UInt64 {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return UInt64(spec.tv_sec) &* 1_000_000_000 &+ UInt64(spec.tv_nsec)
    }

    /// Microseconds since the same point (for latencies).
    public static func microseconds() -> Int {
        Int(nanoseconds() / 1_000)
    }

    /// Milliseconds since the same point (for deadlines).
    public static func milliseconds() -> Int64 {
        Int64(nanoseconds() / 1_000_000)
    }
}
