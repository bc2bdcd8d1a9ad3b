import HeraldStore
import HeraldStoreProtocol
import Testing

@Suite("Reactions under messages (both stores)")
struct ReactionStoreTests {
    @Test("Each (message, person, emoji) is stored once; a page's range reads them by message in the order given, within its conversation and limit, and they last across connections", arguments: StoreBackend.allCases)
    func reactionsStoredOnce(_ backend: StoreBackend) throws {
        let (database, store) = try storeWithUsers(backend)
        let (c, _) = try store.findOrCreateDirect(between: "alice", and: "bob", now: 1)
        let (other, _) = try store.findOrCreateDirect(between: "alice", and: "carol", now: 1)
        #expect(try store.addReaction(message: "m6", conversation: c.id, user: "bob", emoji: "❤️", now: 10))
        #expect(try store.addReaction(message: "m5", conversation: c.id, user: "bob", emoji: "👍", now: 11))
        #expect(try !store.addReaction(message: "m5", conversation: c.id, user: "bob", emoji: "👍", now: 12), "a repeat is the same reaction")
        #expect(try store.addReaction(message: "m5", conversation: c.id, user: "alice", emoji: "👍", now: 13))
        #expect(try store.addReaction(message: "m9", conversation: c.id, user: "bob", emoji: "🎉", now: 14))
        #expect(try store.addReaction(message: "m5", conversation: other.id, user: "carol", emoji: "👀", now: 15))
        let expected = [
            ReactionRecord(message: "m5", user: "bob", emoji: "👍", createdAt: 11), ReactionRecord(message: "m5", user: "alice", emoji: "👍", createdAt: 13),
            ReactionRecord(message: "m6", user: "bob", emoji: "❤️", createdAt: 10),
        ]
        #expect(try store.reactions(conversation: c.id, first: "m5", last: "m6", limit: 10) == expected)
        #expect(try store.reactions(conversation: c.id, first: "m6", last: "m5", limit: 10) == expected, "either end first")
        #expect(try store.reactions(conversation: c.id, first: "m5", last: "m6", limit: 2) == Array(expected.prefix(2)))
        #expect(try store.reactions(conversation: c.id, first: "x", last: "m6", limit: 10).isEmpty, "not a message id: nothing")
        let reopened = try database.open()
        #expect(try reopened.reactions(conversation: c.id, first: "m1", last: "m9", limit: 10).map(\.emoji) == ["👍", "👍", "❤️", "🎉"])
    }
}
