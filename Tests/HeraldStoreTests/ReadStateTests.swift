import HeraldStore
import Testing

@Suite("Read state")
struct ReadStateTests {
    @Test("U3: ten unread, six acked -> exactly those six become read, four stay unread", arguments: StoreBackend.allCases)
    func incremental(_ backend: StoreBackend) throws {
        let (_, store) = try storeWithUsers(backend)
        let (c, _) = try store.findOrCreateDirect(between: "alice", and: "bob", now: 1)
        let messages = try send(10, from: "bob", in: c.id, store: store)
        #expect(try store.unreadCount(user: "alice", conversation: c.id) == 10)
        // Acked out of order: the result comes back in storage order.
        let acked = [messages[5], messages[0], messages[3], messages[1], messages[4], messages[2]]
        let read = try store.markRead(user: "alice", messageIds: acked.map(\.id), now: 500)
        #expect(read == Array(messages.prefix(6)))
        #expect(try store.unreadCount(user: "alice", conversation: c.id) == 4)
        for message in messages {
            #expect(try store.isRead(user: "alice", message: message.id) == (message.order <= messages[5].order))
        }
    }

    @Test("U2: already read, unknown and malformed ids are skipped; a second ack reads nothing", arguments: StoreBackend.allCases)
    func onlyNewlyRead(_ backend: StoreBackend) throws {
        let (_, store) = try storeWithUsers(backend)
        let (c, _) = try store.findOrCreateDirect(between: "alice", and: "bob", now: 1)
        let messages = try send(3, from: "bob", in: c.id, store: store)
        #expect(try store.markRead(user: "alice", messageIds: [messages[0].id], now: 5) == [messages[0]])
        let second = try store.markRead(user: "alice", messageIds: [messages[0].id, messages[1].id, messages[1].id, "m999", "m0", "zz"], now: 6)
        #expect(second == [messages[1]])
        #expect(try store.markRead(user: "alice", messageIds: [messages[0].id, messages[1].id], now: 7).isEmpty)
        #expect(try store.unreadCount(user: "alice", conversation: c.id) == 1)
    }

    @Test("S7/U1: the sender's own messages are never unread and never become read for the sender", arguments: StoreBackend.allCases)
    func ownMessages(_ backend: StoreBackend) throws {
        let (_, store) = try storeWithUsers(backend)
        let (c, _) = try store.findOrCreateDirect(between: "alice", and: "bob", now: 1)
        let own = try send(2, from: "alice", in: c.id, store: store)
        #expect(try store.unreadCount(user: "alice", conversation: c.id) == 0)
        #expect(try store.markRead(user: "alice", messageIds: own.map(\.id), now: 9).isEmpty)
        #expect(try store.readers(of: own[0].id).isEmpty)
        #expect(try store.unreadCount(user: "bob", conversation: c.id) == 2)
    }

    @Test("R5: reading messages of a conversation the user is not in does nothing", arguments: StoreBackend.allCases)
    func othersConversations(_ backend: StoreBackend) throws {
        let (_, store) = try storeWithUsers(backend)
        let (ab, _) = try store.findOrCreateDirect(between: "alice", and: "bob", now: 1)
        let messages = try send(2, from: "alice", in: ab.id, store: store)
        #expect(try store.markRead(user: "carol", messageIds: messages.map(\.id), now: 9).isEmpty)
        #expect(try store.readers(of: messages[0].id).isEmpty)
        #expect(try store.unreadCount(user: "bob", conversation: ab.id) == 2)
        #expect(try store.unreadCounts(user: "carol").isEmpty)
    }

    @Test("unreadCounts covers every conversation of the user, zeros included", arguments: StoreBackend.allCases)
    func allCounts(_ backend: StoreBackend) throws {
        let (_, store) = try storeWithUsers(backend)
        let (ab, _) = try store.findOrCreateDirect(between: "alice", and: "bob", now: 1)
        let (ac, _) = try store.findOrCreateDirect(between: "alice", and: "carol", now: 1)
        let group = try store.createGroup(title: "G", creator: "bob", members: ["alice", "carol"], now: 1)
        _ = try send(3, from: "bob", in: ab.id, store: store)
        _ = try send(2, from: "carol", in: group.id, store: store)
        #expect(try store.unreadCounts(user: "alice") == [ab.id: 3, ac.id: 0, group.id: 2])
        #expect(try store.unreadCounts(user: "bob") == [ab.id: 0, group.id: 2])
    }

    @Test("U6: readers lists each reader once with the time it read", arguments: StoreBackend.allCases)
    func receipts(_ backend: StoreBackend) throws {
        let (_, store) = try storeWithUsers(backend)
        let group = try store.createGroup(title: "G", creator: "alice", members: ["bob", "carol"], now: 1)
        let message = try send(1, from: "alice", in: group.id, store: store)[0]
        _ = try store.markRead(user: "carol", messageIds: [message.id], now: 20)
        _ = try store.markRead(user: "bob", messageIds: [message.id], now: 30)
        _ = try store.markRead(user: "carol", messageIds: [message.id], now: 40)
        #expect(try store.readers(of: message.id) == [ReadReceipt(user: "carol", readAt: 20), ReadReceipt(user: "bob", readAt: 30)])
    }
}
