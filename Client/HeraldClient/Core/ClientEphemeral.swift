import HeraldRules

/// What a device knows of typing and presence (E1, E2): kept in memory only, like the server keeps it.
struct ClientEphemeral: Sendable {
    /// Others typing, per conversation, ending after 6 s of silence here too.
    var typing = TypingIndicators()
    /// Conversations this device reported a standing start in (a send there reports the stop).
    var reported: Set<String> = []
    /// The interactive composer's reports: start, refreshed at most every 3 s, stop after 5 s without a keystroke.
    var reporter = TypingReporter()
    /// The last presence heard for each user.
    var presence: [String: PresenceState] = [:]

    var nextDeadline: Instant? {
        [typing.nextDeadline, reporter.nextDeadline].compactMap { $0 }.min()
    }
}
