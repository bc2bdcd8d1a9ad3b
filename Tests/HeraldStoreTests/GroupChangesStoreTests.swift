import HeraldStore
import HeraldStorePostgres
import HeraldTestSupport
import Testing

/// G1-G5 in the store: who made a group, a new title, a member added with nothing unread, and system lines that are
/// nobody's unread, on both backends.
@Suite("Groups changed after they were made (G1-G5)")
struct GroupChangesStoreTests {
    @Test("G3: a group remembers its creator; a direct conversation and an unknown id have none", arguments: StoreBackend.allCases)
    func creator(_ backend: StoreBackend) throws {
        let (_, store) = try storeWithUsers(backend)
        let group = try store.createGroup(title: "Team", creator: "bob", members: ["alice", "carol"], now: 1)
        let (direct, _) = try store.findOrCreateDirect(between: "alice", and: "bob", now: 1)
        #expect(try store.groupCreator(conversation: group.id) == "bob")
        #expect(try store.groupCreator(conversation: direct.id) == nil)
        #expect(try store.groupCreator(conversation: "c999") == nil)
        #expect(try store.groupCreator(conversation: "nonsense") == nil)
    }

    @Test("G1: a rename is what every later read sees; a direct conversation cannot be renamed", arguments: StoreBackend.allCases)
    func rename(_ backend: StoreBackend) throws {
        let (database, store) = try storeWithUsers(backend)
        let group = try store.createGroup(title: "Team", creator: "alice", members: ["bob"], now: 1)
        _ = try store.conversationForDelivery(id: group.id)  // a store that keeps it in memory has it now
        #expect(try store.renameGroup(conversation: group.id, title: "Team B"))
        #expect(try store.conversation(id: group.id)?.title == "Team B")
        #expect(try store.conversationForDelivery(id: group.id)?.title == "Team B")
        #expect(try database.open().conversation(id: group.id)?.title == "Team B", "another connection (node) reads it too")
        let (direct, _) = try store.findOrCreateDirect(between: "alice", and: "bob", now: 1)
        #expect(try !store.renameGroup(conversation: direct.id, title: "No"))
        #expect(try store.conversation(id: direct.id)?.title == nil)
    }

    @Test("G2: an added member starts with nothing unread, reads nothing by acking older messages, and counts what follows", arguments: StoreBackend.allCases)
    func addedMemberCountsFromJoining(_ backend: StoreBackend) throws {
        let (_, store) = try storeWithUsers(backend)
        let group = try store.createGroup(title: "Team", creator: "alice", members: ["bob"], now: 1)
        let before = try (1...3).map { try store.insertMessage(conversation: group.id, sender: "alice", clientMessageId: "a\($0)", kind: .text, text: "old \($0)", imageURL: nil, now: 10 + Int64($0)).message }
        _ = try store.conversationForDelivery(id: group.id)
        #expect(try store.addParticipant(user: "carol", conversation: group.id))
        #expect(try !store.addParticipant(user: "carol", conversation: group.id), "adding again changes nothing")
        #expect(try store.conversationForDelivery(id: group.id)?.participants == ["alice", "bob", "carol"])
        #expect(try store.isParticipant(user: "carol", conversation: group.id))
        #expect(try store.unreadCount(user: "carol", conversation: group.id) == 0)
        #expect(try store.conversations(for: "carol").map(\.conversation.id) == [group.id])
        #expect(try store.history(conversation: group.id, before: nil, limit: 10).count == 3, "the history is there to read")

        #expect(try store.markRead(user: "carol", messageIds: before.map(\.id), now: 20).isEmpty, "G2: older messages counted as read at joining")
        #expect(try store.unreadCount(user: "carol", conversation: group.id) == 0)

        let after = try store.insertMessage(conversation: group.id, sender: "bob", clientMessageId: "b1", kind: .text, text: "new", imageURL: nil, now: 30).message
        #expect(try store.unreadCount(user: "carol", conversation: group.id) == 1)
        #expect(try store.unreadCount(user: "alice", conversation: group.id) == 1)
        #expect(try store.markRead(user: "carol", messageIds: [after.id], now: 31).map(\.id) == [after.id])
        #expect(try store.unreadCount(user: "carol", conversation: group.id) == 0)

        // M2 on a message from before they joined: it had counted as read for them, so nothing goes negative.
        let unsent = try #require(try store.unsendMessage(id: before[2].id, now: 40))
        #expect(unsent.unreadFor == ["bob"], "only bob had it unread; carol counted it as read when she joined")
        #expect(try store.unreadCount(user: "carol", conversation: group.id) == 0)
        #expect(try store.unreadCount(user: "bob", conversation: group.id) == 2, "bob had the three unread, one of them gone")

        #expect(throws: StoreError.self) { _ = try store.addParticipant(user: "nobody", conversation: group.id) }
        let (direct, _) = try store.findOrCreateDirect(between: "alice", and: "bob", now: 1)
        #expect(try !store.addParticipant(user: "carol", conversation: direct.id), "G6: a direct conversation takes nobody in")
        #expect(try !store.isParticipant(user: "carol", conversation: direct.id))
    }

    @Test("G2: a member removed and added again counts from the second joining, not from their old reads", arguments: StoreBackend.allCases)
    func addedAgain(_ backend: StoreBackend) throws {
        let (_, store) = try storeWithUsers(backend)
        let group = try store.createGroup(title: "Team", creator: "alice", members: ["bob", "carol"], now: 1)
        let first = try store.insertMessage(conversation: group.id, sender: "alice", clientMessageId: "a1", kind: .text, text: "1", imageURL: nil, now: 2).message
        #expect(try store.markRead(user: "carol", messageIds: [first.id], now: 3).count == 1)
        try store.removeParticipant(user: "carol", conversation: group.id)
        _ = try store.insertMessage(conversation: group.id, sender: "alice", clientMessageId: "a2", kind: .text, text: "2", imageURL: nil, now: 4)
        #expect(try store.addParticipant(user: "carol", conversation: group.id))
        #expect(try store.unreadCount(user: "carol", conversation: group.id) == 0)
        let third = try store.insertMessage(conversation: group.id, sender: "alice", clientMessageId: "a3", kind: .text, text: "3", imageURL: nil, now: 5).message
        #expect(try store.unreadCount(user: "carol", conversation: group.id) == 1)
        #expect(try store.unsendMessage(id: first.id, now: 6)?.unreadFor == ["bob"])
        #expect(try store.unreadCount(user: "carol", conversation: group.id) == 1)
        #expect(try store.markRead(user: "carol", messageIds: [third.id], now: 7).count == 1)
        #expect(try store.unreadCount(user: "carol", conversation: group.id) == 0)
    }

    @Test("G5: a system line is in the history in storage order, moves the activity, and is nobody's unread nor readable", arguments: StoreBackend.allCases)
    func systemLine(_ backend: StoreBackend) throws {
        let (_, store) = try storeWithUsers(backend)
        let group = try store.createGroup(title: "Team", creator: "alice", members: ["bob"], now: 1)
        let before = try store.insertMessage(conversation: group.id, sender: "bob", clientMessageId: "b1", kind: .text, text: "hi", imageURL: nil, now: 2).message
        let line = try store.insertSystemLine(conversation: group.id, actor: "alice", text: "Alice renamed the group to X", now: 3)
        let after = try store.insertMessage(conversation: group.id, sender: "bob", clientMessageId: "b2", kind: .text, text: "yo", imageURL: nil, now: 4).message
        #expect(line.kind == .system && line.sender == "alice" && line.order > before.order && line.order < after.order)
        let history = try store.history(conversation: group.id, before: nil, limit: 10)
        #expect(history.map(\.id) == [after.id, line.id, before.id])
        #expect(history[1].kind == .system && history[1].text == "Alice renamed the group to X")
        #expect(try store.unreadCount(user: "bob", conversation: group.id) == 0, "a line by alice is not bob's unread")
        #expect(try store.unreadCount(user: "alice", conversation: group.id) == 2)
        #expect(try store.markRead(user: "bob", messageIds: [line.id], now: 5).isEmpty)
        #expect(try store.markRead(user: "alice", messageIds: [line.id, before.id, after.id], now: 5).map(\.id) == [before.id, after.id])
        #expect(try store.unreadCount(user: "alice", conversation: group.id) == 0)
        let lastActivity = try #require(try store.conversations(for: "alice").first?.conversation.lastActivity)
        #expect(lastActivity >= 4)
        _ = try store.insertSystemLine(conversation: group.id, actor: "alice", text: "Alice added Carol", now: 9)
        #expect(try store.conversations(for: "bob").first?.conversation.lastActivity == 9)
        #expect(try store.conversations(for: "bob").first?.unreadCount == 0)
    }
}

/// G1, G2 across nodes: another node's copy of a group (PostgreSQL nodes keep conversations in memory between
/// transactions) follows a rename and an added member through the wake-up.
@Suite("PostgreSQL: a group changed on one node is seen by the others (G1, G2)", .enabled(if: PostgresCluster.binariesAvailable, PostgresCluster.skipReason))
struct PostgresGroupChangesTests {
    @Test("G2, R5: node A, which had the group in memory, delivers to the member node B added and sees B's new title")
    func otherNodeFollows() throws {
        let (url, a) = try postgresStoreWithUsers()
        let b = try PostgresStore(url: url)
        let group = try a.createGroup(title: "Team", creator: "alice", members: ["bob"], now: 1)
        // A sends (so it holds the group in memory, committed) before B changes it.
        _ = try a.transaction { try a.insertMessage(conversation: group.id, sender: "alice", clientMessageId: "a1", kind: .text, text: "1", imageURL: nil, now: 2) }
        _ = try a.transaction { try a.conversationForDelivery(id: group.id) }
        #expect(try b.transaction { try b.addParticipant(user: "carol", conversation: group.id) })
        #expect(try b.transaction { try b.renameGroup(conversation: group.id, title: "Team B") })
        let seen = try a.transaction { try a.conversationForDelivery(id: group.id) }
        #expect(seen?.participants == ["alice", "bob", "carol"])
        #expect(seen?.title == "Team B")
        // A's send counts for carol, who B added: unread 1 (the older one counted as read when she joined).
        _ = try a.transaction { try a.insertMessage(conversation: group.id, sender: "carol", clientMessageId: "c1", kind: .text, text: "hi", imageURL: nil, now: 3) }
        _ = try a.transaction { try a.insertMessage(conversation: group.id, sender: "bob", clientMessageId: "b1", kind: .text, text: "hey", imageURL: nil, now: 4) }
        #expect(try b.unreadCount(user: "carol", conversation: group.id) == 1)
        #expect(try a.unreadCount(user: "alice", conversation: group.id) == 2)
    }
}
