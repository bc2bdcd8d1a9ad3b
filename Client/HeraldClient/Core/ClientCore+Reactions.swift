import HeraldProtocol
import HeraldRules

/// Reactions to messages of this user's conversations, as the server's `reaction` events tell them: kept per message
/// for the thread to show under it, and printed as `reaction` events.
extension ClientCore {
    mutating func reacted(_ frame: EventFrame) {
        guard let conversation = frame.conversationId, let message = frame.messageId, let who = frame.user, let emoji = frame.emoji else { return }
        let before = reactions[message] ?? []
        let after = ReactionSummary.adding(MessageReaction(user: who, emoji: emoji), to: before)
        guard after != before else { return }
        reactions[message] = after
        // The line under the message takes a row: the viewport is sized again (what is drawn is what is read, U2).
        if viewport?.conversation == conversation { relayoutThread() }
        emit(.reaction(conversation: conversation, message: message, user: who, emoji: emoji, sequence: frame.seq))
    }

    /// The reactions a history page carries, added to those this device knows (a live one may have come first).
    mutating func noteReactions(in page: [MessageInfo]) {
        for message in page {
            guard let given = message.reactions, !given.isEmpty else { continue }
            var known = reactions[message.id] ?? []
            for reaction in given { known = ReactionSummary.adding(MessageReaction(user: reaction.user, emoji: reaction.emoji), to: known) }
            reactions[message.id] = known
        }
    }
}
