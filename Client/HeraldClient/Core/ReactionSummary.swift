/// One reaction to a message: who reacted with what.
public struct MessageReaction: Sendable, Equatable {
    public var user: String
    public var emoji: String

    public init(user: String, emoji: String) {
        self.user = user
        self.emoji = emoji
    }
}

/// The reactions under a message, sans-IO: each person's emoji counted once (reacting 👍 twice is one 👍), emoji in
/// the order they were first given, each with how many people gave it: `👍 2  ❤️ 1`.
public enum ReactionSummary {
    /// Reactions kept per message: a bound on what a burst of others' reactions can make this device hold.
    public static let maxPerMessage = 1000

    /// `reactions` with `reaction` added, unless that person already gave that emoji or the message holds the most.
    public static func adding(_ reaction: MessageReaction, to reactions: [MessageReaction]) -> [MessageReaction] {
        guard !reactions.contains(reaction), reactions.count < maxPerMessage else { return reactions }
        return reactions + [reaction]
    }

    /// The line shown under the message; nil when it has none.
    public static func text(_ reactions: [MessageReaction]) -> String? {
        var order: [String] = []
        var counts: [String: Int] = [:]
        for reaction in reactions {
            if counts[reaction.emoji] == nil { order.append(reaction.emoji) }
            counts[reaction.emoji, default: 0] += 1
        }
        guard !order.isEmpty else { return nil }
        return order.map { "\($0) \(counts[$0] ?? 0)" }.joined(separator: "  ")
    }
}
