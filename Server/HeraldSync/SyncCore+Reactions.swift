import HeraldProtocol
import HeraldStoreProtocol

/// Reactions under a message: every participant's devices are told who reacted with what, so each can show the
/// reactions beneath the message they belong to. The bell notification for the sender (B1) is separate.
extension SyncCore {
    /// Appends a `reaction` stream event (with a seq) to every participant of the message's conversation, the reactor
    /// included (their other devices show it too): a device that was away gets it on resume, in order, once (R3).
    func announceReaction(_ emoji: String, to message: MessageRecord, by user: String, now: Int64, step: inout SyncStep<Device>) throws {
        guard let conversation = try store.conversation(id: message.conversation) else { return }
        var event = EventFrame(event: .reaction)
        event.conversationId = conversation.id
        event.messageId = message.id
        event.user = user
        event.emoji = emoji
        event.at = now
        try appendEvent(event.encodeBody(), to: conversation.participants, of: conversation.id, now: now, step: &step)
    }

    /// Reactions a `history` page carries, per message at most this many: a bound on the answer's size whatever a
    /// crowd of reactors did.
    static var reactionsPerMessage: Int { 100 }

    /// A history page with each message's reactions (none on an unsent placeholder, M2).
    func withReactions(_ messages: [MessageInfo], in conversation: String) throws -> [MessageInfo] {
        guard let first = messages.first?.id, let last = messages.last?.id else { return messages }
        let stored = try store.reactions(
            conversation: conversation, first: first, last: last, limit: messages.count * Self.reactionsPerMessage)
        guard !stored.isEmpty else { return messages }
        var byMessage: [String: [ReactionInfo]] = [:]
        for reaction in stored where (byMessage[reaction.message]?.count ?? 0) < Self.reactionsPerMessage {
            byMessage[reaction.message, default: []].append(ReactionInfo(user: reaction.user, emoji: reaction.emoji))
        }
        return messages.map { message in
            var message = message
            if message.unsent != true { message.reactions = byMessage[message.id] }
            return message
        }
    }
}
