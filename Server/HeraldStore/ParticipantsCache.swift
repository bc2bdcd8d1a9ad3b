/// Each conversation's participants (sorted user ids) by row id, kept in memory by the read-write store.
///
/// Participants are set when a conversation is created and change when a member leaves or is added (G2, G3), and only
/// this store's connection writes them (the API goes through the sync thread): each change forgets the entry
/// (``forget(_:)``), so an entry never goes stale. An entry added
/// inside a transaction may belong to a conversation created in it, whose row id a rollback hands out again: a
/// rollback forgets the entries added since its savepoint began (``mark`` / ``rollBack(to:)``).
struct ParticipantsCache {
    private var byConversation: [Int64: [String]] = [:]
    /// Conversations read whole while their participants were cached here, as read (see
    /// ``SQLiteStore/conversationForDelivery(id:)``); an entry goes with its conversation's participants.
    private var records: [Int64: ConversationRecord] = [:]
    private var cachedUsers = 0
    /// Conversations cached in the open transaction, in order, for rollbacks.
    private var addedInTransaction: [Int64] = []
    /// Beyond this many cached participant ids in all the cache starts over (it refills on demand).
    static let maxCachedUsers = 1_000_000

    /// The position to roll back to for a savepoint that begins now.
    var mark: Int { addedInTransaction.count }

    func participants(of conversation: Int64) -> [String]? { byConversation[conversation] }

    /// The conversation as read while its current participants were cached, if it was.
    func record(of conversation: Int64) -> ConversationRecord? { records[conversation] }

    /// Keeps `record` for as long as its participants stay cached (they are the record's).
    mutating func keep(_ record: ConversationRecord, of conversation: Int64) {
        guard let participants = byConversation[conversation], participants == record.participants else { return }
        records[conversation] = record
    }

    /// Caches a list read from the database; `inTransaction` when a transaction (that may roll back) is open.
    mutating func store(_ participants: [String], of conversation: Int64, inTransaction: Bool) {
        guard !participants.isEmpty, byConversation[conversation] == nil else { return }
        if cachedUsers + participants.count > Self.maxCachedUsers { removeAll() }
        byConversation[conversation] = participants
        cachedUsers += participants.count
        if inTransaction { addedInTransaction.append(conversation) }
    }

    /// Forgets what was cached since `mark` (a rolled-back savepoint or transaction).
    mutating func rollBack(to mark: Int) {
        guard mark < addedInTransaction.count else { return }
        for conversation in addedInTransaction[max(mark, 0)...] {
            if let removed = byConversation.removeValue(forKey: conversation) { cachedUsers -= removed.count }
            records[conversation] = nil
        }
        addedInTransaction.removeSubrange(max(mark, 0)...)
    }

    /// The outermost transaction ended: what it cached is committed (or was rolled back already).
    mutating func endTransaction() {
        addedInTransaction.removeAll(keepingCapacity: true)
    }

    /// Drops one conversation's entry (its participants changed); the next read refills it from the table. Always
    /// safe, also inside a transaction that rolls back.
    mutating func forget(_ conversation: Int64) {
        if let removed = byConversation.removeValue(forKey: conversation) { cachedUsers -= removed.count }
        records[conversation] = nil
    }

    mutating func removeAll() {
        byConversation.removeAll()
        records.removeAll()
        cachedUsers = 0
        addedInTransaction.removeAll(keepingCapacity: true)
    }
}
