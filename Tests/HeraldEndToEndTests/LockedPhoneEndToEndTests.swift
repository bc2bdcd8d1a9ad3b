import Foundation
import HeraldTestSupport
import Testing

extension EndToEnd {
    /// P1-P5 for a device with no connection: `herald --push webpush` is a browser with a Web Push subscription whose
    /// endpoint it serves itself; `lock` closes its connection and only the server's encrypted pushes (RFC 8030/8291,
    /// VAPID) reach it. Every "nothing came" below is followed by a control push that does come, so silence is proved
    /// by the order of what arrives, not by a wait.
    @Suite("P for a locked phone (Web Push)")
    struct LockedPhone {
        /// A server with a VAPID key that takes loopback http endpoints (the clients' own).
        static func world(pushGrace: Double = 0, arguments: [String] = []) throws -> World {
            let key = FileManager.default.temporaryDirectory.appendingPathComponent("vapid-\(UUID().uuidString).pem").path
            let openssl = Process()
            openssl.executableURL = URL(fileURLWithPath: "/bin/sh")
            openssl.arguments = ["-c", "openssl ecparam -name prime256v1 -genkey -noout | openssl pkcs8 -topk8 -nocrypt -out '\(key)'"]
            try openssl.run()
            openssl.waitUntilExit()
            guard openssl.terminationStatus == 0 else { throw LockedPhoneError.noKey }
            return try World(
                pushGrace: pushGrace,
                serverArguments: ["--vapid-key-file", key, "--vapid-subject", "mailto:ops@example.com", "--push-allow-http-loopback"] + arguments)
        }

        enum LockedPhoneError: Error { case noKey }

        /// A phone of `user` with a Web Push subscription, registered and then locked.
        static func lockedPhone(_ world: World, _ user: String, device: String = "phone") throws -> ClientProcess {
            let phone = try world.connect(user, arguments: ["--push", "webpush", "--device", "\(user)-\(device)"])
            try phone.waitEvent("push.registered")
            try phone.ok("lock")
            try phone.waitEvent("disconnected")
            return phone
        }

        @Test("P1, P2, P4, U5: a locked phone is alerted after the grace period with conversation, message, sender, preview, link and badge")
        func alertedAfterGrace() throws {
            let world = try Self.world(pushGrace: 1)
            let alice = try world.connect("alice")
            try world.createUser("bob")
            let c = try world.dm(alice, "bob")
            let phone = try Self.lockedPhone(world, "bob")
            let mark = phone.mark
            let sent = Date()
            let m = try world.send(alice, c, "are you there?")
            let push = try phone.waitEvent("push", after: mark)
            #expect(Date().timeIntervalSince(sent) >= 0.9, "P4: not before the grace period")
            #expect(push.string("conversation") == c)
            #expect(push.string("message") == m)
            #expect(push.string("sender") == "alice")
            #expect(push.string("preview") == "are you there?")
            #expect(push.string("url") == "herald://conversation/\(c)")
            #expect(push.int("badge") == 1)
            #expect(push.string("via") == "webpush")
            let state = try phone.state()
            #expect(state.bool("connected") == false)
            #expect((state.array("pushes") ?? []).count == 1)
        }

        @Test("P1: nothing while another device of the user views the conversation")
        func nothingWhileViewedElsewhere() throws {
            let world = try Self.world()
            let alice = try world.connect("alice")
            try world.createUser("bob")
            let c = try world.dm(alice, "bob")
            let laptop = try world.connect("bob")
            try laptop.waitState("laptop knows c") { $0.conversationOrder.contains(c) }
            let phone = try Self.lockedPhone(world, "bob")
            try laptop.ok("open thread \(c)")
            let mark = phone.mark
            let seen = try world.send(alice, c, "I see this on the laptop")
            try laptop.waitState("shown on the laptop") { $0.visible.contains(seen) }
            try laptop.ok("open list")
            let control = try world.send(alice, c, "now the laptop is on the list")
            let push = try phone.waitEvent("push", after: mark)
            #expect(push.string("message") == control, "the first push is the control's: none came for \(seen)")
        }

        @Test("P4: a message read during the grace period never alerts the locked phone")
        func readDuringGrace() throws {
            let world = try Self.world(pushGrace: 1.5)
            let alice = try world.connect("alice")
            try world.createUser("bob")
            let c = try world.dm(alice, "bob")
            let laptop = try world.connect("bob")
            try laptop.waitState("laptop knows c") { $0.conversationOrder.contains(c) }
            let phone = try Self.lockedPhone(world, "bob")
            let mark = phone.mark
            let read = try world.send(alice, c, "read me quickly")
            try laptop.ok("open thread \(c)")
            try laptop.waitState("read on the laptop") { $0.visible.contains(read) && $0.unread(c) == 0 }
            try laptop.ok("open list")
            let control = try world.send(alice, c, "this one stays unread")
            let push = try phone.waitEvent("push", after: mark)
            #expect(push.string("message") == control, "the first push is the control's: none came for \(read)")
        }

        @Test("P5: the alert is withdrawn from the locked phone when the message is read elsewhere")
        func withdrawnWhenReadElsewhere() throws {
            let world = try Self.world()
            let alice = try world.connect("alice")
            try world.createUser("bob")
            let c = try world.dm(alice, "bob")
            let laptop = try world.connect("bob")
            try laptop.waitState("laptop knows c") { $0.conversationOrder.contains(c) }
            let phone = try Self.lockedPhone(world, "bob")
            let mark = phone.mark
            let m = try world.send(alice, c, "read me on the laptop")
            try phone.waitEvent("push", after: mark)
            try laptop.ok("open thread \(c)")
            let cleared = try phone.waitEvent("push.cleared", after: mark)
            #expect(cleared.string("message") == m)
            let state = try phone.state()
            #expect((state.array("pushes") ?? []).isEmpty)
        }

        @Test("D2, D3: tapping the push is a cold start that lands in the thread and reads the message")
        func tapOpensThread() throws {
            let world = try Self.world()
            let alice = try world.connect("alice")
            try world.createUser("bob")
            let c = try world.dm(alice, "bob")
            let phone = try Self.lockedPhone(world, "bob")
            let mark = phone.mark
            let m = try world.send(alice, c, "tap me")
            try phone.waitEvent("push", after: mark)
            let tapped = phone.mark
            try phone.ok("push tap")
            try phone.waitConnected(after: tapped)
            let state = try phone.waitState("in the thread, read") { $0.string("scene") == "thread" && $0.visible.contains(m) && $0.unread(c) == 0 }
            #expect(state.string("conversation") == c)
            #expect(state.bool("foreground") == true)
        }

        @Test("P2, D2 with --push-preview none: the locked phone gets only an opaque ref; a tap resolves it once connected and opens the message's thread")
        func opaquePushTap() throws {
            let world = try Self.world(arguments: ["--push-preview", "none"])
            let alice = try world.connect("alice")
            try world.createUser("bob")
            let c = try world.dm(alice, "bob")
            let phone = try Self.lockedPhone(world, "bob")
            let mark = phone.mark
            let m = try world.send(alice, c, "the secret plan")
            let push = try phone.waitEvent("push", after: mark)
            #expect(push.string("ref")?.hasPrefix("p") == true)
            #expect(push.string("conversation") == nil && push.string("message") == nil && push.string("sender") == nil)
            #expect(push.string("title") == "Herald")
            #expect(push.string("preview") == "New message")
            let tapped = phone.mark
            try phone.ok("push tap")
            try phone.waitConnected(after: tapped)
            let state = try phone.waitState("in the thread, read") { $0.string("scene") == "thread" && $0.visible.contains(m) && $0.unread(c) == 0 }
            #expect(state.string("conversation") == c)
        }

        @Test("B1, B2, P4, P5: a bell notification alerts the locked phone with the bell count as badge, and is taken back when read elsewhere")
        func bellAlertsLockedPhone() throws {
            let world = try Self.world()
            let carol = try world.connect("carol")
            try world.createUser("bob")
            let phone = try Self.lockedPhone(world, "bob")
            let mark = phone.mark
            try carol.ok("follow bob")
            let push = try phone.waitEvent("push", after: mark)
            #expect(push.string("kind") == "bell")
            #expect(push.int("badge") == 1)
            #expect(push.string("preview")?.contains("followed you") == true)
            // P5 for the bell: read on another device, the alert is taken back from the locked phone.
            let notification = try #require(push.string("notification"))
            let laptop = try world.connect("bob")
            try laptop.ok("bell read \(notification)")
            let cleared = try phone.waitEvent("push.cleared", after: mark)
            #expect(cleared.string("message") == notification)
            #expect((try phone.state().array("pushes") ?? []).isEmpty)
        }

        @Test("Sign-out: a signed-out phone is never alerted again; the user's other locked devices still are")
        func signOutStopsAlerts() throws {
            // One worker: the phone's push, had there been one, would have gone out before the tablet's (queue order).
            let world = try Self.world(arguments: ["--push-concurrency", "1"])
            let alice = try world.connect("alice")
            try world.createUser("bob")
            let c = try world.dm(alice, "bob")
            let laptop = try world.connect("bob")
            let phone = try Self.lockedPhone(world, "bob", device: "phone")
            let tablet = try Self.lockedPhone(world, "bob", device: "tablet")
            try laptop.ok("sign-out bob-phone")
            let (phoneMark, tabletMark) = (phone.mark, tablet.mark)
            let m = try world.send(alice, c, "only the tablet hears this")
            let push = try tablet.waitEvent("push", after: tabletMark)
            #expect(push.string("message") == m)
            // The phone's row, had there been one, was queued first (devices in name order) and sent first by the one
            // worker, and the phone prints what it gets before answering the next command.
            _ = try phone.state()
            #expect(phone.events("push", after: phoneMark).isEmpty)
        }
    }
}
