import Glibc

/// CLOCK_MONOTONIC in nanoseconds; send timestamps and receive times come from the same process, so their
/// difference is the insert→delivery latency without any clock sync.
enum MonotonicClock {
    static func nanoseconds() -> UInt64 {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return UInt64(spec.tv_sec) &* 1_000_000_000 &+ UInt64(spec.tv_nsec)
    }
}
