import Glibc

/// The calendar clock, for the one thing the client states in calendar time: when a mute ends (N1, `until` in ms
/// since the epoch). Everything else runs on the monotonic clock.
enum WallClock {
    static func milliseconds() -> Int64 {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return Int64(spec.tv_sec) * 1_000 + Int64(spec.tv_nsec) / 1_000_000
    }
}
