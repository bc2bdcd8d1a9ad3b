import HeraldProtocol
import HeraldRules
import HeraldStoreProtocol

/// G1-G4: a group changes after it was made. Every change reaches every participant's devices as stream events (with a
/// seq, replayed on resume, R3) and leaves a system line in the thread that every participant sees live and in history.
extension SyncCore {
    /// G1: any participant renames a group. The same title again changes nothing and writes no line.
    func renameGroup(_ conversation: String, title: String, user: String, now: Int64, step: inout SyncStep<Device>) throws -> ConversationInfo {
        let record = try changeableGroup(conversation, user: user, verb: "renamed")
        guard record.title != title else { return try conversationInfo(record, for: user) }
        guard try store.renameGroup(conversation: conversation, title: title), let renamed = try store.conversation(id: conversation) else {
            throw ErrorInfo(.notParticipant, "no such conversation")
        }
        try tellGroupChanged(renamed, to: renamed.participants, now: now, step: &step)
        try writeSystemLine(in: renamed, actor: user, text: GroupLines.renamed(by: try name(of: user), to: title), now: now, step: &step)
        return try conversationInfo(renamed, for: user)
    }

    /// G2: any participant adds a user to a group. The new member gets the conversation (everything before counts as
    /// read for them), the others `group.changed`; everyone, the new member included, the line "X added Y". Adding a
    /// member again changes nothing.
    func addMember(_ member: String, to conversation: String, user: String, now: Int64, step: inout SyncStep<Device>) throws -> ConversationInfo {
        let record = try changeableGroup(conversation, user: user, verb: "changed")
        guard !record.participants.contains(member) else { return try conversationInfo(record, for: user) }
        guard try store.user(id: member) != nil else { throw ErrorInfo(.unknownUser, "no user '\(member.prefix(64))'") }
        guard record.participants.count <= configuration.limits.maxGroupMembers else {
            throw ErrorInfo(.tooLarge, "a group has at most \(configuration.limits.maxGroupMembers) members besides its creator")
        }
        guard try store.addParticipant(user: member, conversation: conversation), let grown = try store.conversation(id: conversation) else {
            return try conversationInfo(record, for: user)
        }
        try tellGroupChanged(grown, to: record.participants, now: now, step: &step)
        var arrival = EventFrame(event: .conversation)
        arrival.conversation = try conversationInfo(grown, for: member)
        try appendEvent(arrival.encodeBody(), to: [member], now: now, step: &step)
        introduce(grown)
        try writeSystemLine(
            in: grown, actor: user, text: GroupLines.added(by: try name(of: user), member: try name(of: member)), now: now, step: &step)
        return try conversationInfo(grown, for: user)
    }

    /// G3: the group's creator removes another member; anyone removing themselves leaves (G4). The removed member's
    /// devices drop the conversation at once (a `left` event) and get nothing of it from now on (R5); the others see
    /// "X removed Y".
    func removeMember(_ member: String, from conversation: String, user: String, now: Int64, step: inout SyncStep<Device>) throws {
        guard member != user else { return try leave(user, conversation: conversation, now: now, step: &step) }
        let record = try changeableGroup(conversation, user: user, verb: "changed")
        guard try store.groupCreator(conversation: conversation) == user else {
            throw ErrorInfo(.forbidden, "only the group's creator removes members; anyone may leave")
        }
        guard record.participants.contains(member) else { throw ErrorInfo(.notFound, "'\(member.prefix(64))' is not in this group") }
        try removeFromGroup(member, record, line: GroupLines.removed(by: try name(of: user), member: try name(of: member)), actor: user,
            now: now, step: &step)
    }

    /// Takes `member` out of the group: everyone who was in it hears of it with `left` (the member's other devices drop
    /// it), then the remaining participants get the system line `line` (written as `actor`'s).
    func removeFromGroup(_ member: String, _ record: ConversationRecord, line: String, actor: String, now: Int64, step: inout SyncStep<Device>) throws {
        var event = EventFrame(event: .left)
        event.conversationId = record.id
        event.user = member
        try appendEvent(event.encodeBody(), to: record.participants, now: now, step: &step)
        try store.removeParticipant(user: member, conversation: record.id)
        guard let remaining = try store.conversation(id: record.id), !remaining.participants.isEmpty else { return }
        try writeSystemLine(in: remaining, actor: actor, text: line, now: now, step: &step)
    }

    /// R5 first (an unknown or foreign conversation is refused alike), then the kind: a direct conversation has fixed
    /// participants and no title, a conflict with what it is.
    private func changeableGroup(_ conversation: String, user: String, verb: String) throws -> ConversationRecord {
        try requireParticipant(user, conversation)
        guard let record = try store.conversation(id: conversation), record.kind == .group else {
            throw ErrorInfo(.conflict, "this is a direct conversation: only a group can be \(verb)")
        }
        return record
    }

    /// `group.changed` to `users`: the group as it is now (one body for all, so its `unread` is nobody's).
    private func tellGroupChanged(_ record: ConversationRecord, to users: [String], now: Int64, step: inout SyncStep<Device>) throws {
        var event = EventFrame(event: .groupChanged)
        event.conversation = try conversationInfo(record, unread: 0, lastMessage: nil)
        try appendEvent(event.encodeBody(), to: users, now: now, step: &step)
    }

    /// Stores a system line in the group's thread and streams it to its participants as a `message` event: no unread,
    /// no toast, no push (it is nobody's message).
    func writeSystemLine(in record: ConversationRecord, actor: String, text: String, now: Int64, step: inout SyncStep<Device>) throws {
        let line = try store.insertSystemLine(conversation: record.id, actor: actor, text: text, now: now)
        var event = EventFrame(event: .message)
        event.message = line.info(senderName: try name(of: actor))
        try appendEvent(event.encodeBody(), to: record.participants, of: record.id, now: now, step: &step)
    }
}
