import HeraldStore
import Testing

/// M1 and M2 in the stores: what an edit and an unsend write, and what they leave alone. The same on both stores.
@Suite("Store: messages changed after sending")
struct MessageRevisionStoreTests {
    @Test("M1: an edit replaces the text, counts itself, stamps its time and touches no unread count", arguments: StoreBackend.allCases)
    func edit(_ backend: StoreBackend) throws {
        let (_, store) = try storeWithUsers(backend)
        let (c, _) = try store.findOrCreateDirect(between: "alice", and: "bob", now: 1)
        let message = try send(1, from: "alice", in: c.id, store: store)[0]
        let edited = try store.transaction { try store.editMessage(id: message.id, text: "better words", maxEdits: 5, now: 2_000) }
        #expect(edited?.text == "better words")
        #expect(edited?.editCount == 1)
        #expect(edited?.editedAt == 2_000)
        #expect(try store.message(id: message.id) == edited)
        #expect(try store.history(conversation: c.id, before: nil, limit: 5).first?.text == "better words")
        #expect(try store.unreadCount(user: "bob", conversation: c.id) == 1, "M1: an edit never changes unread state")
        #expect(try store.conversations(for: "bob").first?.lastMessage?.text == "better words")
    }

    @Test("M1: the edit limit, an unsent message and an image are refused by the write itself", arguments: StoreBackend.allCases)
    func editLimits(_ backend: StoreBackend) throws {
        let (_, store) = try storeWithUsers(backend)
        let (c, _) = try store.findOrCreateDirect(between: "alice", and: "bob", now: 1)
        let message = try send(1, from: "alice", in: c.id, store: store)[0]
        for round in 1...2 {
            #expect(try store.transaction { try store.editMessage(id: message.id, text: "edit \(round)", maxEdits: 2, now: 2_000) } != nil)
        }
        #expect(try store.transaction { try store.editMessage(id: message.id, text: "edit 3", maxEdits: 2, now: 2_000) } == nil)
        #expect(try store.message(id: message.id)?.text == "edit 2", "a refused edit changes nothing")
        #expect(try store.message(id: message.id)?.editCount == 2)
        let image = try store.insertMessage(
            conversation: c.id, sender: "alice", clientMessageId: "img", kind: .image, text: nil, imageURL: "https://example.com/a.png", now: 3_000
        ).message
        #expect(try store.transaction { try store.editMessage(id: image.id, text: "caption", maxEdits: 5, now: 3_001) } == nil)
        _ = try store.transaction { try store.unsendMessage(id: message.id, now: 4_000) }
        #expect(try store.transaction { try store.editMessage(id: message.id, text: "too late", maxEdits: 5, now: 4_001) } == nil)
        #expect(try store.transaction { try store.editMessage(id: "m999999", text: "nobody", maxEdits: 5, now: 4_001) } == nil)
    }

    @Test("M2: an unsend clears the content, leaves unread(c) one lower for exactly those who had not read it, once", arguments: StoreBackend.allCases)
    func unsend(_ backend: StoreBackend) throws {
        let (_, store) = try storeWithUsers(backend)
        let group = try store.createGroup(title: "Team", creator: "alice", members: ["bob", "carol"], now: 1)
        let messages = try send(3, from: "alice", in: group.id, store: store)
        _ = try store.markRead(user: "carol", messageIds: messages.map(\.id), now: 1_500)
        #expect(try store.unreadCount(user: "bob", conversation: group.id) == 3)
        let result = try store.transaction { try store.unsendMessage(id: messages[2].id, now: 2_000) }
        #expect(result?.unreadFor == ["bob"], "carol had read it; alice sent it")
        #expect(result?.message.unsentAt == 2_000)
        #expect(result?.message.text == nil)
        #expect(try store.unreadCount(user: "bob", conversation: group.id) == 2)
        #expect(try store.unreadCount(user: "carol", conversation: group.id) == 0)
        #expect(try store.unreadCount(user: "alice", conversation: group.id) == 0)
        #expect(try store.transaction { try store.unsendMessage(id: messages[2].id, now: 2_001) } == nil, "a second unsend changes nothing")
        #expect(try store.unreadCount(user: "bob", conversation: group.id) == 2)
        #expect(try store.markRead(user: "bob", messageIds: [messages[2].id], now: 2_002).isEmpty, "reading an unsent message counts nothing")
        #expect(try store.unreadCount(user: "bob", conversation: group.id) == 2)
        _ = try store.markRead(user: "bob", messageIds: messages.map(\.id), now: 2_003)
        #expect(try store.unreadCount(user: "bob", conversation: group.id) == 0, "never negative, never stuck")
        // History keeps the placeholder in its place; the list preview is the message before it.
        let history = try store.history(conversation: group.id, before: nil, limit: 5)
        #expect(history.map(\.id) == messages.reversed().map(\.id))
        #expect(history.first?.unsentAt == 2_000)
        #expect(try store.conversations(for: "bob").first?.lastMessage?.id == messages[1].id)
        #expect(try store.lastShownMessage(conversation: group.id)?.id == messages[1].id)
        let later = try send(1, from: "bob", in: group.id, store: store, startingAt: 3_000)
        #expect(try store.unreadCount(user: "alice", conversation: group.id) == 1, "counting goes on from the corrected counters")
        #expect(try store.lastShownMessage(conversation: group.id)?.id == later[0].id)
    }

    @Test("M2: a message sent in the same transaction as its unsend is counted and uncounted alike", arguments: StoreBackend.allCases)
    func unsendInTheSameBatch(_ backend: StoreBackend) throws {
        let (_, store) = try storeWithUsers(backend)
        let (c, _) = try store.findOrCreateDirect(between: "alice", and: "bob", now: 1)
        let unreadFor = try store.transaction { () throws -> [String]? in
            let message = try send(1, from: "alice", in: c.id, store: store)[0]
            return try store.unsendMessage(id: message.id, now: 1_500)?.unreadFor
        }
        #expect(unreadFor == ["bob"])
        #expect(try store.unreadCount(user: "bob", conversation: c.id) == 0)
        #expect(try store.conversations(for: "bob").first?.lastMessage == nil)
    }

    @Test("M1: an edit gives the words of a push still queued for a device without a connection; one being sent keeps its own", arguments: StoreBackend.allCases)
    func queuedPushRevised(_ backend: StoreBackend) throws {
        let (_, store) = try storeWithUsers(backend)
        let phone = try store.transaction { try store.registerPushTarget(PushQueueTests.target("bob-phone"), now: PushQueueTests.now) }
        let tablet = try store.transaction { try store.registerPushTarget(PushQueueTests.target("bob-tablet"), now: PushQueueTests.now) }
        try store.transaction {
            try store.enqueuePushDelivery(PushQueueTests.delivery(tablet, message: "m1"), notBefore: PushQueueTests.now)
        }
        // The tablet's push is out (claimed) before the phone's is queued.
        _ = try store.claimPushDeliveries(provider: .webhook, limit: 10, now: PushQueueTests.now, leaseMilliseconds: 60_000)
        try store.transaction { try store.enqueuePushDelivery(PushQueueTests.delivery(phone, message: "m1"), notBefore: PushQueueTests.now) }
        #expect(try store.transaction { try store.reviseQueuedPushes(message: "m1", body: "new words") } == 1)
        let claimed = try store.claimPushDeliveries(provider: .webhook, limit: 10, now: PushQueueTests.now, leaseMilliseconds: 60_000)
        #expect(claimed.map(\.body) == ["new words"])
        #expect(claimed.map(\.target.device) == ["bob-phone"])
    }
}
