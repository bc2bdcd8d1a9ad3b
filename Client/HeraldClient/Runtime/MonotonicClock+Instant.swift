import HeraldClock
import HeraldRules

extension MonotonicClock {
    /// The clock as the pure rules take it: the client reads no other clock.
    static func now() -> Instant { Instant(milliseconds: milliseconds()) }
}
