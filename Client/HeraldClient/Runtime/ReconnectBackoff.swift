import HeraldRules

/// Jittered exponential backoff between reconnect attempts: 100 ms doubling up to 5 s, each delay drawn
/// from [half, full] of the step so many clients do not reconnect in lockstep after a server restart.
struct ReconnectBackoff {
    var initial: Milliseconds = 100
    var maximum: Milliseconds = .seconds(5)
    private(set) var attempts = 0

    /// The delay before the next attempt, and counts it.
    mutating func nextDelay() -> Milliseconds {
        let step = min(maximum.value, initial.value << min(attempts, 16))
        attempts += 1
        var generator = SystemRandomNumberGenerator()
        return Milliseconds(Int64.random(in: (step / 2)...max(step / 2, step), using: &generator))
    }

    /// A connection got through: start again from the shortest delay.
    mutating func reset() { attempts = 0 }
}
