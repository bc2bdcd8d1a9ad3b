import HeraldStore
import Testing

@Suite("Bell and push outbox")
struct BellAndPushTests {
    @Test("B2/B3: create, list newest first, mark one read, mark all read", arguments: StoreBackend.allCases)
    func bell(_ backend: StoreBackend) throws {
        let (_, store) = try storeWithUsers(backend)
        let first = try store.createNotification(user: "alice", kind: "follow", actor: "bob", text: "Bob followed you", url: nil, now: 1)
        let second = try store.createNotification(
            user: "alice", kind: "mention", actor: "carol", text: "Carol mentioned you", url: "herald://notifications", now: 2)
        _ = try store.createNotification(user: "bob", kind: "system", actor: nil, text: "Welcome", url: nil, now: 3)
        #expect(first.id == "n1" && !first.read)
        #expect(try store.notifications(user: "alice", limit: 10) == [second, first])
        #expect(try store.unreadNotificationCount(user: "alice") == 2)
        #expect(try store.markNotificationRead(user: "alice", id: first.id))
        #expect(!(try store.markNotificationRead(user: "alice", id: first.id)))
        #expect(!(try store.markNotificationRead(user: "bob", id: second.id)))
        #expect(!(try store.markNotificationRead(user: "alice", id: "n01")))
        #expect(try store.unreadNotificationCount(user: "alice") == 1)
        #expect(try store.markAllNotificationsRead(user: "alice") == 1)
        #expect(try store.unreadNotificationCount(user: "alice") == 0)
        #expect(try store.unreadNotificationCount(user: "bob") == 1)
        #expect(try store.notifications(user: "alice", limit: 10).allSatisfy(\.read))
    }

    @Test("B1/B2: the bell as a device shows it is the newest notifications and the unread count of all of them, even those not listed; none for a user without any", arguments: StoreBackend.allCases)
    func bellAsShown(_ backend: StoreBackend) throws {
        let (_, store) = try storeWithUsers(backend)
        #expect(try store.bell(user: "alice", limit: 2) == Bell(notifications: [], unread: 0))
        var created: [NotificationRecord] = []
        for index in 0..<4 {
            created.append(try store.createNotification(user: "alice", kind: "follow", actor: "bob", text: "\(index)", url: nil, now: Int64(index)))
        }
        _ = try store.createNotification(user: "bob", kind: "system", actor: nil, text: "Welcome", url: nil, now: 1)
        #expect(try store.markNotificationRead(user: "alice", id: created[3].id))
        let bell = try store.bell(user: "alice", limit: 2)
        #expect(bell.notifications.map(\.id) == [created[3].id, created[2].id])
        #expect(bell.notifications.first?.read == true)
        #expect(bell.unread == 3, "the two unread not listed count too")
        #expect(try store.bell(user: "alice", limit: 0) == Bell(notifications: [], unread: 3))
        #expect(try store.markAllNotificationsRead(user: "alice") == 3)
        #expect(try store.bell(user: "alice", limit: 10).unread == 0)
    }

    @Test("B4: the feed keeps the newest 100 per user", arguments: StoreBackend.allCases)
    func cap(_ backend: StoreBackend) throws {
        let (_, store) = try storeWithUsers(backend)
        var created: [NotificationRecord] = []
        for index in 0..<130 {
            created.append(try store.createNotification(user: "alice", kind: "reaction", actor: "bob", text: "\(index)", url: nil, now: Int64(index)))
        }
        _ = try store.createNotification(user: "bob", kind: "system", actor: nil, text: "keep me", url: nil, now: 1)
        let feed = try store.notifications(user: "alice", limit: 1_000)
        #expect(feed.map(\.id) == created.suffix(100).reversed().map(\.id))
        #expect(feed.first == created.last)
        #expect(try store.unreadNotificationCount(user: "alice") == 100)
        #expect(try store.notifications(user: "bob", limit: 10).count == 1)
    }

    @Test("P2/P5: pushes are recorded per device and withdrawn once when the message is read", arguments: StoreBackend.allCases)
    func pushes(_ backend: StoreBackend) throws {
        let (_, store) = try storeWithUsers(backend)
        let (c, _) = try store.findOrCreateDirect(between: "alice", and: "bob", now: 1)
        let message = try send(1, from: "bob", in: c.id, store: store)[0]
        let phone = try store.enqueuePush(
            user: "alice", device: "phone", conversation: c.id, message: message.id, sender: "bob", preview: "message 0",
            url: "herald://conversation/\(c.id)/message/\(message.id)", now: 10)
        let tablet = try store.enqueuePush(
            user: "alice", device: "tablet", conversation: c.id, message: message.id, sender: "bob", preview: "message 0",
            url: "herald://conversation/\(c.id)/message/\(message.id)", now: 11)
        let active = try store.pushes(user: "alice")
        #expect(active.map(\.id) == [phone, tablet])
        #expect(active.first?.conversation == c.id && active.first?.message == message.id && active.first?.sender == "bob")
        let withdrawn = try store.withdrawPushes(message: message.id, user: "alice", now: 20)
        #expect(withdrawn.map(\.device) == ["phone", "tablet"])
        #expect(withdrawn.allSatisfy { $0.withdrawnAt == 20 })
        #expect(try store.withdrawPushes(message: message.id, user: "alice", now: 21).isEmpty)
        #expect(try store.pushes(user: "alice").isEmpty)
        #expect(try store.prunePushes(olderThan: 11) == 1)
        #expect(throws: StoreError.self) {
            try store.enqueuePush(user: "alice", device: "d", conversation: "bad", message: message.id, sender: "bob", preview: "", url: "", now: 1)
        }
    }

    @Test("The signing secret and meta values persist; secret(orCreate:) creates once", arguments: StoreBackend.allCases)
    func meta(_ backend: StoreBackend) throws {
        let (_, store) = try storeWithUsers(backend)
        #expect(try store.secret() == nil)
        let secret = try store.ensureSecret()
        #expect(secret.count == 32)
        #expect(try store.ensureSecret() == secret)
        #expect(try store.secret(orCreate: { [1, 2, 3] }) == secret)
        try store.setSecret([7, 7])
        #expect(try store.secret() == [7, 7])
        #expect(try store.meta("k") == nil)
        try store.setMeta("k", "v")
        #expect(try store.meta("k") == "v")
        try store.setMeta("k", nil)
        #expect(try store.meta("k") == nil)
    }
}
