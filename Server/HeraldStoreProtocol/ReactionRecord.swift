/// One person's reaction to a message, as stored: each (message, user, emoji) once.
public struct ReactionRecord: Sendable, Equatable {
    /// The message's id ("m7").
    public var message: String
    public var user: String
    public var emoji: String
    /// When it was first given, ms since the epoch.
    public var createdAt: Int64

    public init(message: String, user: String, emoji: String, createdAt: Int64) {
        self.message = message
        self.user = user
        self.emoji = emoji
        self.createdAt = createdAt
    }
}
