/// N1-N3: how loud a message is for one recipient, the same for the server's push decision (``PushRules``) and the
/// client's toasts.
///
/// ```swift
/// let alert = RecipientAlert(muted: MuteRules.isMuted(until: .max, now: now), mentioned: true, quiet: false)
/// alert.alerts                // true: a mention alerts even in a muted conversation (N2)
/// AlertRules.messageToastPriority(for: alert)  // .elevated
/// ```
public struct RecipientAlert: Hashable, Sendable {
    /// N1: the recipient muted the message's conversation (and the mute has not run out).
    public var muted: Bool
    /// N2: the message mentions the recipient, who is a participant.
    public var mentioned: Bool
    /// N3: the recipient has quiet hours on.
    public var quiet: Bool

    /// Describes one recipient's settings for one message.
    public init(muted: Bool = false, mentioned: Bool = false, quiet: Bool = false) {
        self.muted = muted
        self.mentioned = mentioned
        self.quiet = quiet
    }

    /// No mute, no mention, no quiet hours: every alert as P1-P4 and S4-S6 say.
    public static let plain = RecipientAlert()

    /// N1, N2: whether the message may alert at all (a mention alerts in a muted conversation).
    public var alerts: Bool { !muted || mentioned }
}

/// N1: a mute's end as stored (nil: not muted; ``forever``: until unmuted).
public enum MuteRules {
    /// The end of a mute without one.
    public static let forever = Int64.max

    /// Whether a mute that ends at `until` (ms since the epoch) is in force at `now`.
    public static func isMuted(until: Int64?, now: Int64) -> Bool {
        guard let until else { return false }
        return until > now
    }
}

/// N1-N4 for the client's toasts and the Messages badge.
public enum AlertRules {
    /// S4, S5 with N1, N2: the priority of a message's toast, or nil when it shows none (a muted conversation without
    /// a mention). A mention is elevated (T6: ahead of normal toasts); everything else normal.
    public static func messageToastPriority(for alert: RecipientAlert) -> ToastPriority? {
        guard alert.alerts else { return nil }
        return alert.mentioned ? .elevated : .normal
    }

    /// N3: whether a toast of `priority` waits while quiet hours are on (normal ones do; elevated and critical show).
    public static func waitsForQuietHours(_ priority: ToastPriority, quiet: Bool) -> Bool {
        quiet && priority == .normal
    }

    /// U1 with N4: the Messages badge. A conversation marked unread counts one, or its unread count when that is higher.
    public static func messagesBadge(unread: [String: Int], markedUnread: Set<String>) -> Int {
        var total = 0
        for (conversation, count) in unread { total += markedUnread.contains(conversation) ? Swift.max(count, 1) : Swift.max(count, 0) }
        for conversation in markedUnread where unread[conversation] == nil { total += 1 }
        return total
    }
}

extension Toast {
    /// N2: a message toast that mentions the user (only a mention raises a message toast above normal).
    public var isMention: Bool { isMessage && priority == .elevated }
}
