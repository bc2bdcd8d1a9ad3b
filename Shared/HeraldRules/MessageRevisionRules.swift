/// M1 and M2: who may change a message after it was sent, and until when. Pure: the caller passes the time.
public enum MessageRevisionRules {
    /// The limits; the defaults are the rules' numbers (servers may shorten or lengthen the windows, tests do).
    public struct Limits: Sendable, Equatable {
        /// M1: an edit is allowed until this long after sending (15 minutes).
        public var editWindowMilliseconds: Int64
        /// M1: how many times one message can be edited (5).
        public var maxEdits: Int
        /// M2: an unsend is allowed until this long after sending (2 minutes).
        public var unsendWindowMilliseconds: Int64

        public init(editWindowMilliseconds: Int64 = 15 * 60_000, maxEdits: Int = 5, unsendWindowMilliseconds: Int64 = 2 * 60_000) {
            self.editWindowMilliseconds = editWindowMilliseconds
            self.maxEdits = maxEdits
            self.unsendWindowMilliseconds = unsendWindowMilliseconds
        }
    }

    /// Why a change is refused.
    public enum Refusal: Sendable, Equatable {
        /// Only the sender may change their message.
        case notSender
        /// Only text messages can be edited.
        case notText
        /// The message was unsent: there is nothing left to edit.
        case unsent
        /// The window has passed (`window` milliseconds after sending).
        case tooLate(window: Int64)
        /// The message was edited `limit` times already.
        case tooManyEdits(limit: Int)
    }

    /// What an edit request comes to: refused, a change, or nothing (the message already reads `text`, as after a
    /// retried edit, which is answered alike and announced once).
    public enum EditDecision: Sendable, Equatable {
        case refuse(Refusal)
        case apply
        case unchanged
    }

    /// M1: may `editor` change the message to `text` at `now`? An identical text is no change, whatever the clock
    /// or count says, so a retry that arrives late still gets the first answer.
    public static func edit(
        editor: String, sender: String, isText: Bool, isUnsent: Bool, currentText: String?, text: String, editCount: Int,
        sentAt: Int64, now: Int64, limits: Limits = Limits()
    ) -> EditDecision {
        guard editor == sender else { return .refuse(.notSender) }
        guard !isUnsent else { return .refuse(.unsent) }
        guard isText else { return .refuse(.notText) }
        if currentText == text { return .unchanged }
        guard now - sentAt <= limits.editWindowMilliseconds else { return .refuse(.tooLate(window: limits.editWindowMilliseconds)) }
        guard editCount < limits.maxEdits else { return .refuse(.tooManyEdits(limit: limits.maxEdits)) }
        return .apply
    }

    /// How an edit a device receives relates to the one it shows (M1). The store numbers a message's edits 1, 2, 3 …,
    /// so the number orders them whatever order they arrive in.
    public enum EditOrder: Sendable, Equatable {
        /// A later edit: apply it.
        case newer
        /// The edit already shown, again (the sender's answer and then its stream event, a retry): nothing changes.
        case same
        /// An edit older than the one shown (a retried or replayed one arriving late): it must not apply again.
        case older
    }

    /// M1: where an edit numbered `incoming` stands against the shown text's number `shown` (0: the original text).
    /// An unknown number on either side (nil: a peer that does not say) counts as newer, as before numbers existed.
    public static func order(ofEdit incoming: Int?, shown: Int?) -> EditOrder {
        guard let incoming, let shown else { return .newer }
        return incoming > shown ? .newer : incoming == shown ? .same : .older
    }

    /// What an unsend request comes to: refused, the unsend, or nothing (it is unsent already: a retry).
    public enum UnsendDecision: Sendable, Equatable {
        case refuse(Refusal)
        case apply
        case unchanged
    }

    /// M2: may `requester` unsend the message at `now`?
    public static func unsend(
        requester: String, sender: String, isUnsent: Bool, sentAt: Int64, now: Int64, limits: Limits = Limits()
    ) -> UnsendDecision {
        guard requester == sender else { return .refuse(.notSender) }
        if isUnsent { return .unchanged }
        guard now - sentAt <= limits.unsendWindowMilliseconds else { return .refuse(.tooLate(window: limits.unsendWindowMilliseconds)) }
        return .apply
    }
}
