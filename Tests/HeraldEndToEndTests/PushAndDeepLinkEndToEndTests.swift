import Foundation
import HeraldTestSupport
import Testing

extension EndToEnd {
    /// Rules P1-P5 and the two-device push behaviour.
    @Suite("P: push")
    struct Push {
        @Test("P1, P2, P3: the push goes only to the background device and carries conversation, message, sender, preview, link")
        func onlyBackgroundDevice() throws {
            let world = try World()
            let alice = try world.connect("alice")
            let phone = try world.connect("bob")
            let laptop = try world.connect("bob")
            let c = try world.dm(alice, "bob")
            try phone.waitState("phone knows c") { $0.conversationOrder.contains(c) }
            try phone.ok("background")
            let (phoneMark, laptopMark) = (phone.mark, laptop.mark)
            let m = try world.send(alice, c, "ping")
            let push = try phone.waitEvent("push", after: phoneMark)
            #expect(push.raw.contains(m))
            #expect(push.int("badge") == 1, "U5: every push carries the recipient's badge")
            let state = try phone.waitState("push kept") { !$0.pushes.isEmpty }
            let kept = state.pushes.first ?? [:]
            #expect(kept["conversation"] as? String == c)
            #expect(kept["message"] as? String == m)
            #expect(kept["sender"] as? String == "alice")
            #expect(kept["preview"] as? String == "ping")
            #expect(kept["url"] as? String == "herald://conversation/\(c)")
            try laptop.waitEvent("toast.shown", after: laptopMark)
            #expect(laptop.events("push", after: laptopMark).isEmpty)
        }

        @Test("P1: no push at all while another of the user's devices is viewing the conversation")
        func suppressedWhileViewing() throws {
            let world = try World()
            let alice = try world.connect("alice")
            let phone = try world.connect("bob")
            let laptop = try world.connect("bob")
            let c = try world.dm(alice, "bob")
            try laptop.waitState("laptop knows c") { $0.conversationOrder.contains(c) }
            try laptop.ok("open thread \(c)")
            try phone.ok("background")
            let mark = phone.mark
            let m = try world.send(alice, c, "seen on the laptop")
            try laptop.waitState("visible on laptop") { $0.visible.contains(m) }
            try phone.waitState("phone sees it read") { $0.unread(c) == 0 }
            #expect(phone.events("push", after: mark).isEmpty)
        }

        @Test("P4: a push waits for the grace period and is dropped if the message is read meanwhile")
        func graceThenDropped() throws {
            let world = try World(pushGrace: 1.5)
            let alice = try world.connect("alice")
            let phone = try world.connect("bob")
            let laptop = try world.connect("bob")
            let c = try world.dm(alice, "bob")
            try laptop.waitState("laptop knows c") { $0.conversationOrder.contains(c) }
            try phone.ok("background")
            let mark = phone.mark
            let m = try world.send(alice, c, "read me quickly")
            try laptop.ok("open thread \(c)")
            try laptop.waitState("read on laptop") { $0.visible.contains(m) && $0.unread(c) == 0 }
            // Past the grace period: the push must never have come.
            Thread.sleep(forTimeInterval: 2.5)
            _ = try phone.state()
            #expect(phone.events("push", after: mark).isEmpty)
        }

        @Test("P5: a delivered push is withdrawn when its message is read on another device")
        func withdrawnWhenRead() throws {
            let world = try World()
            let alice = try world.connect("alice")
            let phone = try world.connect("bob")
            let laptop = try world.connect("bob")
            let c = try world.dm(alice, "bob")
            try laptop.waitState("laptop knows c") { $0.conversationOrder.contains(c) }
            try phone.ok("background")
            let mark = phone.mark
            try world.send(alice, c, "withdraw me")
            try phone.waitEvent("push", after: mark)
            try laptop.ok("open thread \(c)")
            try phone.waitState("push withdrawn") { $0.pushes.isEmpty }
        }

        @Test("seed 002 #1, AC-5, M3: tapping a push opens the sender's thread directly")
        func pushTapOpensThread() throws {
            let world = try World()
            let alice = try world.connect("alice")
            let carol = try world.connect("carol")
            let bob = try world.connect("bob")
            let withAlice = try world.dm(alice, "bob")
            let withCarol = try world.dm(carol, "bob")
            try bob.waitState("both known") { $0.conversationOrder.count == 2 }
            try bob.ok("background")
            let mark = bob.mark
            try world.send(carol, withCarol, "from carol")
            try bob.waitEvent("push", after: mark)
            try world.send(alice, withAlice, "from alice")
            try bob.waitEvent("push", after: mark) { $0.raw.contains(withAlice) }
            try bob.ok("push tap 0")
            let state = try bob.waitState("in carol's thread") { $0.string("scene") == "thread" }
            #expect(state.string("conversation") == withCarol, "the tapped push's conversation, not the newest")
            #expect(state.bool("foreground") == true)
        }
    }

    /// Seed 002 test #3: a group chat notification tapped from the background.
    @Suite("D: group push tap")
    struct GroupPushTap {
        @Test("seed 002 #3, D2: tapping a group message's push opens the group thread")
        func groupPushTap() throws {
            let world = try World()
            let alice = try world.connect("alice")
            _ = try world.connect("carol")
            let bob = try world.connect("bob")
            let team = try world.group(alice, title: "Team", ["bob", "carol"])
            try bob.waitState("bob knows the group") { $0.conversationOrder.contains(team) }
            try bob.ok("background")
            let mark = bob.mark
            try world.send(alice, team, "standup in five")
            let push = try bob.waitEvent("push", after: mark)
            #expect(push.raw.contains(team))
            try bob.ok("push tap")
            let state = try bob.waitState("in the group thread") { $0.string("scene") == "thread" && $0.string("conversation") == team }
            #expect(state.string("anchor") == "messages.thread(\(team))")
            #expect(state.bool("foreground") == true)
        }
    }

    /// Rules D1-D3 and the deep-link tests of seed 002.
    @Suite("D: deep links")
    struct DeepLinks {
        @Test("D1: a malformed link is refused with invalid_link and the scene stays", arguments: [
            "https://conversation/c1", "herald://conversation", "herald://conversation/c1/extra", "herald://conversation/%63%31",
            "herald://settings", "herald://conversation/c1/message/", "herald://conversation/c1?x=1",
        ])
        func malformed(_ url: String) throws {
            let world = try World()
            let bob = try world.connect("bob")
            try bob.ok("open tab requests")
            let answer = try bob.command("open-url \(url)")
            #expect(answer.type == "error")
            #expect(answer.string("code") == "invalid_link")
            let state = try bob.state()
            #expect(state.string("scene") == "tab")
        }

        @Test("D2: a conversation link lands in the thread at the bottom; a message link lands on that message")
        func conversationLink() throws {
            let world = try World()
            let alice = try world.connect("alice")
            let bob = try world.connect("bob")
            let c = try world.dm(alice, "bob")
            var ids: [String] = []
            for i in 1...25 { ids.append(try world.send(alice, c, "line \(i)")) }
            try bob.waitState("25 unread") { $0.unread(c) == 25 }
            try bob.ok("open notifications")
            let mark = bob.mark
            try bob.ok("open-url herald://conversation/\(c)")
            let route = try bob.waitEvent("route", after: mark)
            #expect(route.string("url") == "herald://conversation/\(c)")
            let state = try bob.waitState("at bottom of c") { $0.string("scene") == "thread" && $0.visible.contains(ids[24]) }
            #expect((state.viewport?["atBottom"] as? Bool) == true)
            try bob.ok("open-url herald://conversation/\(c)/message/\(ids[2])")
            try bob.waitState("message 3 visible") { $0.visible.contains(ids[2]) }
            try bob.ok("open-url herald://notifications")
            try bob.waitState("bell feed") { $0.string("scene") == "notifications" && $0.string("anchor") == "notifications.feed" }
            try bob.ok("open-url herald://messages")
            try bob.waitState("list") { $0.string("scene") == "list" }
        }

        @Test("D3: a link given at start completes once the conversation is loaded (cold start)")
        func coldStart() throws {
            let world = try World()
            let alice = try world.connect("alice")
            try world.createUser("bob")
            let c = try world.dm(alice, "bob")
            let m = try world.send(alice, c, "open me")
            let bob = try world.connect("bob", arguments: ["--open", "herald://conversation/\(c)"])
            try bob.waitState("cold start landed") { $0.string("scene") == "thread" && $0.string("conversation") == c }
            let state = try bob.waitState("m visible at the bottom") { $0.visible.contains(m) }
            #expect(state["pendingDeepLink"] is NSNull || state["pendingDeepLink"] == nil)
        }

        @Test("D3: a conversation that does not exist or is not mine ends on the list with an error toast and reveals nothing")
        func notMine() throws {
            let world = try World()
            let alice = try world.connect("alice")
            _ = try world.connect("carol")
            let bob = try world.connect("bob")
            let secret = try world.dm(alice, "carol")
            try world.send(alice, secret, "top secret")
            for url in ["herald://conversation/\(secret)", "herald://conversation/c999"] {
                try bob.ok("open tab requests")
                let answer = try bob.command("open-url \(url)")
                #expect(answer.type == "ok")
                let state = try bob.waitState("error toast") { ($0.toast?["kind"] as? String) == "error" }
                #expect(state.string("scene") == "list")
                #expect(!state.raw.contains("top secret"))
                try bob.command("toast swipe")
            }
        }
    }
}
