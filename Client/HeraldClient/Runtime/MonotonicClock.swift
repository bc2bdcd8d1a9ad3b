import Glibc
import HeraldRules

/// The only clock the client reads: CLOCK_MONOTONIC in milliseconds. The value is passed into HeraldRules.
enum MonotonicClock {
    static func now() -> Instant {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return Instant(milliseconds: Int64(spec.tv_sec) * 1000 + Int64(spec.tv_nsec) / 1_000_000)
    }
}
