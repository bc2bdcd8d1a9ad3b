import HeraldStore
import Testing

@Suite("Users and conversations")
struct ConversationTests {
    @Test("upsertUser creates then renames; unknown users are nil", arguments: StoreBackend.allCases)
    func users(_ backend: StoreBackend) throws {
        let (_, store) = try storeWithUsers(backend)
        #expect(try store.user(id: "alice") == UserRecord(id: "alice", name: "Alice"))
        try store.upsertUser(id: "alice", name: "Alice Liddell")
        #expect(try store.user(id: "alice")?.name == "Alice Liddell")
        #expect(try store.user(id: "nobody") == nil)
    }

    @Test("Arriving devices: a user the store does not hold is created with the token's name (once, however often they arrive), a stored one keeps theirs; a token issued before a sign-out of all devices or of this one is refused, a device without a token never is", arguments: StoreBackend.allCases)
    func admit(_ backend: StoreBackend) throws {
        let (_, store) = try storeWithUsers(backend)
        try store.signOut(user: "bob", device: nil, issuedBefore: 100)
        try store.signOut(user: "carol", device: "tablet", issuedBefore: 100)
        let admissions = try store.admit([
            Arrival(user: UserRecord(id: "zed", name: "Zed"), device: nil, issuedAt: 50),
            Arrival(user: UserRecord(id: "alice", name: "Someone Else"), device: "phone", issuedAt: 50),
            Arrival(user: UserRecord(id: "zed", name: "Zed Again"), device: "laptop", issuedAt: 50),
            Arrival(user: UserRecord(id: "bob", name: "Bob"), device: "phone", issuedAt: 99),
            Arrival(user: UserRecord(id: "bob", name: "Bob"), device: "phone", issuedAt: 100),
            Arrival(user: UserRecord(id: "carol", name: "Carol"), device: "tablet", issuedAt: 99),
            Arrival(user: UserRecord(id: "carol", name: "Carol"), device: "phone", issuedAt: 99),
            Arrival(user: UserRecord(id: "carol", name: "Carol"), device: "tablet", issuedAt: nil),
        ])
        #expect(admissions.map(\.user.name) == ["Zed", "Alice", "Zed", "Bob", "Bob", "Carol", "Carol", "Carol"])
        #expect(admissions.map(\.signedOut) == [false, false, false, true, false, true, false, false])
        #expect(try store.user(id: "zed") == UserRecord(id: "zed", name: "Zed"))
        #expect(try store.admit([]) == [])
    }

    @Test("A direct conversation is unique per unordered pair", arguments: StoreBackend.allCases)
    func directUnique(_ backend: StoreBackend) throws {
        let (_, store) = try storeWithUsers(backend)
        let (first, created) = try store.findOrCreateDirect(between: "bob", and: "alice", now: 10)
        #expect(created)
        #expect(first.id == "c1")
        #expect(first.kind == .direct)
        #expect(first.participants == ["alice", "bob"])
        let (again, createdAgain) = try store.findOrCreateDirect(between: "alice", and: "bob", now: 20)
        #expect(!createdAgain)
        #expect(again == first)
        let (other, otherCreated) = try store.findOrCreateDirect(between: "alice", and: "carol", now: 30)
        #expect(otherCreated && other.id == "c2")
    }

    @Test("Conversations with unknown users fail with notFound and store nothing", arguments: StoreBackend.allCases)
    func unknownUsers(_ backend: StoreBackend) throws {
        let (_, store) = try storeWithUsers(backend)
        #expect(throws: StoreError.self) { try store.findOrCreateDirect(between: "alice", and: "mallory", now: 1) }
        do {
            _ = try store.createGroup(title: "x", creator: "alice", members: ["mallory"], now: 1)
            Issue.record("expected an error")
        } catch let error as StoreError {
            #expect(error.kind == .notFound)
        }
        #expect(try store.conversations(for: "alice").isEmpty)
    }

    @Test("E2/R5: contacts are the people sharing a DM or a small enough group, each once, never oneself or a leaver", arguments: StoreBackend.allCases)
    func contacts(_ backend: StoreBackend) throws {
        let (_, store) = try storeWithUsers(backend)
        for id in ["dave", "erin", "frank"] { try store.upsertUser(id: id, name: id) }
        #expect(try store.contacts(of: "alice", inConversationsOfAtMost: 64).isEmpty)
        _ = try store.findOrCreateDirect(between: "bob", and: "alice", now: 1)
        _ = try store.findOrCreateDirect(between: "alice", and: "alice", now: 1)  // a note to self adds nobody
        let small = try store.createGroup(title: "small", creator: "alice", members: ["bob", "carol"], now: 2)
        _ = try store.createGroup(title: "big", creator: "alice", members: ["dave", "erin", "frank"], now: 3)
        _ = try store.createGroup(title: "not mine", creator: "frank", members: ["erin"], now: 4)
        #expect(try store.contacts(of: "alice", inConversationsOfAtMost: 3) == ["bob", "carol"])
        #expect(try store.contacts(of: "alice", inConversationsOfAtMost: 4) == ["bob", "carol", "dave", "erin", "frank"])
        #expect(try store.contacts(of: "frank", inConversationsOfAtMost: 2) == ["erin"])
        try expectEachAsAlone(store)
        try store.removeParticipant(user: "carol", conversation: small.id)
        #expect(try store.contacts(of: "alice", inConversationsOfAtMost: 3) == ["bob"])
        #expect(try store.contacts(of: "carol", inConversationsOfAtMost: 64).isEmpty)
        #expect(try store.contacts(of: "nobody", inConversationsOfAtMost: 64).isEmpty)
        try expectEachAsAlone(store)
    }

    /// Everyone's contacts read together are what each reads alone, at every size limit (a user with none may be left out).
    private func expectEachAsAlone(_ store: any StoreUnderTest) throws {
        let users = ["alice", "bob", "carol", "dave", "erin", "frank", "nobody", "alice"]
        for limit in 1...5 {
            let each = try store.contacts(ofEach: users, inConversationsOfAtMost: limit)
            for user in users {
                #expect(each[user] ?? [] == (try store.contacts(of: user, inConversationsOfAtMost: limit)), "\(user) in conversations of at most \(limit)")
            }
            #expect(Set(each.keys).isSubset(of: Set(users)))
        }
        #expect(try store.contacts(ofEach: [], inConversationsOfAtMost: 64).isEmpty)
    }

    @Test("Groups carry title, creator plus members, and appear in lists without messages", arguments: StoreBackend.allCases)
    func groups(_ backend: StoreBackend) throws {
        let (_, store) = try storeWithUsers(backend)
        let group = try store.createGroup(title: "Trip", creator: "carol", members: ["alice", "bob", "alice"], now: 50)
        #expect(group.kind == .group)
        #expect(group.title == "Trip")
        #expect(group.participants == ["alice", "bob", "carol"])
        #expect(try store.conversation(id: group.id) == group)
        #expect(try store.isParticipant(user: "bob", conversation: group.id))
        let list = try store.conversations(for: "alice")
        #expect(list.map(\.conversation.id) == [group.id])
        #expect(list.first?.conversation == group, "the list carries the group as stored, its participants in byte order")
        #expect(list.first?.lastMessage == nil)
        #expect(list.first?.unreadCount == 0)
    }

    @Test("R5: participation is exact; malformed ids are simply not found", arguments: StoreBackend.allCases)
    func participation(_ backend: StoreBackend) throws {
        let (_, store) = try storeWithUsers(backend)
        let (direct, _) = try store.findOrCreateDirect(between: "alice", and: "bob", now: 1)
        #expect(!(try store.isParticipant(user: "carol", conversation: direct.id)))
        for bad in ["c01", "c", "x1", "c1 ", "c-1", "c99", "", "c99999999999999999999999"] {
            #expect(try store.conversation(id: bad) == nil, "\(bad)")
            #expect(!(try store.isParticipant(user: "alice", conversation: bad)), "\(bad)")
        }
    }

    @Test("The list is ordered by last activity, newest first, with unread count and last message", arguments: StoreBackend.allCases)
    func listOrder(_ backend: StoreBackend) throws {
        let (_, store) = try storeWithUsers(backend)
        let (ab, _) = try store.findOrCreateDirect(between: "alice", and: "bob", now: 1)
        let (ac, _) = try store.findOrCreateDirect(between: "alice", and: "carol", now: 2)
        let group = try store.createGroup(title: "All", creator: "alice", members: ["bob", "carol"], now: 3)
        _ = try send(2, from: "bob", in: ab.id, store: store, startingAt: 100)
        let fromCarol = try send(1, from: "carol", in: ac.id, store: store, startingAt: 200)
        let list = try store.conversations(for: "alice")
        #expect(list.map(\.conversation.id) == [ac.id, ab.id, group.id])
        #expect(list.map(\.unreadCount) == [1, 2, 0])
        #expect(list.first?.lastMessage == fromCarol.last)
        #expect(list.first?.conversation.lastActivity == 200)
        #expect(try store.conversations(for: "bob").map(\.conversation.id) == [ab.id, group.id])
    }
}
