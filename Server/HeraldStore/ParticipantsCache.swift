/// Each conversation's participants (sorted user ids) by row id, kept in memory by the read-write store.
///
/// Participants are fixed when a conversation is created and only this store's connection creates conversations
/// (the API goes through the sync thread), so an entry never goes stale. A rolled-back transaction clears the cache,
/// since a conversation created in it may have been cached and its row id can be handed out again.
struct ParticipantsCache {
    private var byConversation: [Int64: [String]] = [:]
    private var cachedUsers = 0
    /// Beyond this many cached participant ids in all the cache starts over (it refills on demand).
    static let maxCachedUsers = 1_000_000

    func participants(of conversation: Int64) -> [String]? { byConversation[conversation] }

    mutating func store(_ participants: [String], of conversation: Int64) {
        guard !participants.isEmpty, byConversation[conversation] == nil else { return }
        if cachedUsers + participants.count > Self.maxCachedUsers { removeAll() }
        byConversation[conversation] = participants
        cachedUsers += participants.count
    }

    mutating func removeAll() {
        byConversation.removeAll()
        cachedUsers = 0
    }
}
