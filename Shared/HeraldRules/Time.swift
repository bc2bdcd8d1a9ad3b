// Time as a value: every rule in this module takes `now` from its caller, so tests own the clock.

/// A span of time in whole milliseconds, the resolution every Herald rule is stated in (T2, T3, T6, T7).
///
/// ```swift
/// let spacing: Milliseconds = 800
/// let duration = Milliseconds.seconds(3)
/// ```
public struct Milliseconds: Hashable, Comparable, Sendable, ExpressibleByIntegerLiteral, CustomStringConvertible {
    /// The length in milliseconds; may be negative when it is the difference of two instants.
    public var value: Int64

    /// Makes a span of `value` milliseconds.
    public init(_ value: Int64) { self.value = value }

    /// Makes a span from an integer literal in milliseconds.
    public init(integerLiteral value: Int64) { self.value = value }

    /// A span of whole seconds.
    public static func seconds(_ seconds: Int64) -> Milliseconds { Milliseconds(seconds &* 1000) }

    /// No time at all.
    public static let zero = Milliseconds(0)

    /// Orders spans by length.
    public static func < (lhs: Milliseconds, rhs: Milliseconds) -> Bool { lhs.value < rhs.value }

    /// Sum of two spans.
    public static func + (lhs: Milliseconds, rhs: Milliseconds) -> Milliseconds { Milliseconds(lhs.value &+ rhs.value) }

    /// Difference of two spans.
    public static func - (lhs: Milliseconds, rhs: Milliseconds) -> Milliseconds { Milliseconds(lhs.value &- rhs.value) }

    /// The span clamped to `range`, e.g. a toast duration to 1–10 s (T2).
    public func clamped(to range: ClosedRange<Milliseconds>) -> Milliseconds {
        Swift.min(Swift.max(self, range.lowerBound), range.upperBound)
    }

    /// "1500ms".
    public var description: String { "\(value)ms" }
}

/// A point on the caller's monotonic clock, in milliseconds since an origin the caller chooses.
///
/// HeraldRules never reads a clock: the host passes `now` into every `handle(_:now:)` and calls
/// `tick(now:)` when a machine's `nextDeadline` is due.
///
/// ```swift
/// var toasts = ToastManager()
/// let events = toasts.handle(.raise(request), now: Instant(milliseconds: 0))
/// if let due = toasts.nextDeadline { /* wake up at `due` and call tick(now:) */ }
/// ```
public struct Instant: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// Milliseconds since the clock's origin.
    public var milliseconds: Int64

    /// Makes the instant `milliseconds` after the origin.
    public init(milliseconds: Int64) { self.milliseconds = milliseconds }

    /// The clock's origin.
    public static let zero = Instant(milliseconds: 0)

    /// Orders instants in time.
    public static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.milliseconds < rhs.milliseconds }

    /// The instant `span` later.
    public static func + (lhs: Instant, rhs: Milliseconds) -> Instant { Instant(milliseconds: lhs.milliseconds &+ rhs.value) }

    /// The instant `span` earlier.
    public static func - (lhs: Instant, rhs: Milliseconds) -> Instant { Instant(milliseconds: lhs.milliseconds &- rhs.value) }

    /// The span from `rhs` to `lhs` (negative when `lhs` is earlier).
    public static func - (lhs: Instant, rhs: Instant) -> Milliseconds { Milliseconds(lhs.milliseconds &- rhs.milliseconds) }

    /// "@1500ms".
    public var description: String { "@\(milliseconds)ms" }
}
