import HeraldProtocol

/// How much message content one user may store per day: the bytes of each message's text and image URL (UTF-8), sent
/// or edited in, counted per UTC day and refused past the limit with `quota_exceeded` (HTTP 429), nothing stored.
///
/// A daily allowance, as hosted messaging backends meter uploads: it bounds what one account (or a stolen token) can
/// make the server keep to a fixed amount a day, whatever the send rate allows, while a person, who types a few
/// hundred kilobytes on a busy day, never meets it. Retries of a stored message (R4) and unchanged edits store
/// nothing and cost nothing. Pure: the time comes in.
public struct StorageQuota: Sendable, Equatable {
    /// The default: 128 MiB a day, hundreds of times what a heavy human sender stores, yet it keeps one account at the
    /// largest message size and full send rate under a thousandth of what it could otherwise store in a day.
    public static let defaultBytesPerDay: Int64 = 128 << 20

    /// Bytes per user per UTC day; 0 = unlimited.
    public var bytesPerDay: Int64

    public init(bytesPerDay: Int64 = StorageQuota.defaultBytesPerDay) {
        self.bytesPerDay = bytesPerDay
    }

    /// Whether sends and edits are metered at all.
    public var isLimited: Bool { bytesPerDay > 0 }

    /// How much a node reserves in the store at a time (``StorageAllowances``): 64 KiB, hundreds of ordinary messages
    /// per query, or a sixteenth of a smaller quota, so a few nodes' unspent shares never hold back much of it.
    var reservationChunk: Int64 { max(min(64 << 10, bytesPerDay / 16), 1) }

    static let dayMilliseconds: Int64 = 86_400_000

    /// The UTC day (days since the epoch) `now` (ms since the epoch) falls on.
    public static func day(now: Int64) -> Int64 {
        now >= 0 ? now / dayMilliseconds : (now + 1) / dayMilliseconds - 1
    }

    /// Seconds from `now` until the next UTC day begins, when the allowance is whole again (at least 1).
    public static func secondsUntilNextDay(now: Int64) -> Int64 {
        let (start, overflow) = (day(now: now) &+ 1).multipliedReportingOverflow(by: dayMilliseconds)
        guard !overflow else { return 1 }
        return max((start - now + 999) / 1000, 1)
    }

    /// What storing `text` and `imageURL` costs.
    public static func cost(text: String?, imageURL: String?) -> Int64 {
        Int64(text?.utf8.count ?? 0) + Int64(imageURL?.utf8.count ?? 0)
    }

    /// The refusal a send or edit past the allowance gets.
    func exceeded(now: Int64) -> ErrorInfo {
        ErrorInfo(.quotaExceeded, "daily storage quota of \(bytesPerDay) bytes of message content reached; "
            + "nothing was stored; it renews in \(Self.secondsUntilNextDay(now: now)) seconds (00:00 UTC)")
    }
}
