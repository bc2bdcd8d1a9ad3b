/// When the terminal bell (BEL, U+0007) rings: with `--terminal-bell`, for a message from someone else that
/// mentions me or arrives in a direct conversation, unless I am looking at that thread or quiet hours are on (N3: the
/// bell is a sound, and quiet hours silence alerts). A muted conversation rings only for a mention, which alerts
/// through a mute (N1, N2).
public enum AttentionBell {
    public struct Arrival: Sendable, Equatable {
        public var conversation: String
        public var fromMe: Bool
        public var direct: Bool
        public var mentionsMe: Bool
        public var muted: Bool

        public init(conversation: String, fromMe: Bool, direct: Bool, mentionsMe: Bool, muted: Bool) {
            self.conversation = conversation
            self.fromMe = fromMe
            self.direct = direct
            self.mentionsMe = mentionsMe
            self.muted = muted
        }
    }

    /// Whether `arrival` rings, with the bell `enabled`, `looking` at the thread named (nil: none in sight), and
    /// quiet hours `quiet`.
    public static func rings(_ arrival: Arrival, enabled: Bool, looking: String?, quiet: Bool) -> Bool {
        guard enabled, !arrival.fromMe, !quiet, looking != arrival.conversation else { return false }
        return arrival.mentionsMe || (arrival.direct && !arrival.muted)
    }
}
