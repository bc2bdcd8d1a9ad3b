/// Changes to a group after it was made (G1-G4): its title, who is in it, and the lines its thread shows about them.
///
/// A member added later joins with everything already sent counted as read for them (G2): they see the history, it
/// never shows up as unread, and they send no receipts for it. A store remembers, per participant, the newest message
/// of the conversation when they joined (0 for the group's first members) and keeps the unread counters exact with it.
public protocol GroupChangesStore: AnyObject {
    /// Who made the group, or nil for a direct conversation, an unknown id, or a group made before creators were kept.
    func groupCreator(conversation: String) throws -> String?
    /// Gives the group `conversation` the title `title`. False when it is not a group (or unknown).
    func renameGroup(conversation: String, title: String) throws -> Bool
    /// Adds `user` to the group `conversation` with nothing unread (G2). False when they are in it already, or it is
    /// not a group. Throws `.notFound` for an unknown user.
    func addParticipant(user: String, conversation: String) throws -> Bool
    /// Stores a line of the server about the group (kind `.system`, `sender` the user who made the change) in the
    /// thread: it moves the conversation's activity but counts as unread for nobody, and reading it counts nothing.
    func insertSystemLine(conversation: String, actor: String, text: String, now: Int64) throws -> MessageRecord
}

/// The key a stored system line carries as its client message id: `~system-` and 128 random bits, so no client's key
/// meets it by chance (the key is unique per sender, R4's index).
public enum SystemLineKey {
    public static func make() -> String {
        var generator = SystemRandomNumberGenerator()
        let high = generator.next() as UInt64
        let low = generator.next() as UInt64
        return "~system-" + String(high, radix: 16) + "-" + String(low, radix: 16)
    }
}
