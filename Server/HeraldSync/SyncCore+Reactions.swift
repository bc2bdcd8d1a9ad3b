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
}
