/// One user's alert settings (N1, N3, N4): what they set on any of their devices, the same on all of them.
public struct UserAlertSettings: Sendable, Equatable {
    /// N3: quiet hours are on.
    public var quiet: Bool
    /// N1: muted conversations and when each mute ends (ms since the epoch; `Int64.max` until unmuted). A mute that
    /// ended may still be listed: whether it is in force is the caller's to judge with its clock.
    public var mutedUntil: [String: Int64]
    /// N4: conversations marked unread.
    public var markedUnread: Set<String>

    public init(quiet: Bool = false, mutedUntil: [String: Int64] = [:], markedUnread: Set<String> = []) {
        self.quiet = quiet
        self.mutedUntil = mutedUntil
        self.markedUnread = markedUnread
    }
}

/// The stores' alert settings, one row per (user, conversation) with a mute or a mark, one per user with quiet hours.
public protocol AlertSettingsStore: AnyObject {
    /// The settings of these users, keyed by user; a user without any is absent. Only conversations the user is still
    /// a participant of are listed (a group they left neither mutes nor counts).
    func alertSettings(users: [String]) throws -> [String: UserAlertSettings]
    /// N1: mutes `conversation` for `user` until `until` (ms since the epoch; `Int64.max`: until unmuted), or unmutes it
    /// with nil. Returns whether anything changed.
    @discardableResult
    func setMute(user: String, conversation: String, until: Int64?) throws -> Bool
    /// N4: marks `conversation` unread for `user`, or clears the mark. Returns whether anything changed.
    @discardableResult
    func setMarkedUnread(user: String, conversation: String, marked: Bool) throws -> Bool
    /// N3: turns `user`'s quiet hours on or off. Returns whether anything changed.
    @discardableResult
    func setQuiet(user: String, on: Bool) throws -> Bool
    /// N1: ends every timed mute whose end is at or before `now` (a mute until unmuted never ends here) and returns
    /// the (user, conversation) pairs it ended, each once: with several nodes only the one whose write ends a mute
    /// gets it back.
    func endMutes(endedBy now: Int64) throws -> [(user: String, conversation: String)]
    /// N1: when the next timed mute ends (ms since the epoch), or nil when none is set.
    func nextMuteEnd() throws -> Int64?
}
