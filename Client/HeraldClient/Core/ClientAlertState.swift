import HeraldProtocol
import HeraldRules

/// N1, N3: the user's mutes and quiet hours as the server last said (snapshot, then `settings` events). Marks (N4)
/// live in the unread ledger, which counts them in the badge.
struct ClientAlertState: Sendable, Equatable {
    /// N3: quiet hours are on.
    var quiet = false
    /// N1: muted conversations and when each mute ends (ms since the epoch; ``MuteRules/forever`` until unmuted).
    var mutedUntil: [String: Int64] = [:]

    /// Whether the conversation is shown as muted (the server drops a mute that ended from its next answers).
    func isMuted(_ conversation: String) -> Bool { mutedUntil[conversation] != nil }

    /// Whether a message sent at `sentAt` (server time) fell inside the mute: the message's own time decides, so a mute
    /// that ended meanwhile is judged without a calendar clock here.
    func isMuted(_ conversation: String, at sentAt: Int64) -> Bool {
        MuteRules.isMuted(until: mutedUntil[conversation], now: sentAt)
    }
}
