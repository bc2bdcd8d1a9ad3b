import Foundation
import HeraldTestSupport
import Testing

extension EndToEnd {
    /// Rules S1-S7 and seed 004's flows M1-M3 / AC-1, AC-2, AC-3, AC-6: what a device shows when a message arrives.
    @Suite("S: scenes")
    struct SceneRules {
        @Test("S1, S2, M1, AC-1: viewing c at bottom renders m inline, follows, reads it; no toast, no push; U6 receipt to the sender")
        func viewingAtBottom() throws {
            let world = try World()
            let alice = try world.connect("alice")
            let bob = try world.connect("bob")
            let c = try world.dm(alice, "bob")
            try bob.waitState("bob knows \(c)") { $0.conversationOrder.contains(c) }
            try bob.ok("open thread \(c)")
            let mark = bob.mark
            let m = try world.send(alice, c, "hello bob")
            try bob.waitEvent("message", after: mark) { $0.string("message") == m }
            let state = try bob.waitState("m visible") { $0.visible.contains(m) }
            #expect(state.unread(c) == 0)
            #expect(state.int("badge") == 0)
            #expect((state.viewport?["atBottom"] as? Bool) == true)
            #expect(bob.events("toast.shown", after: mark).isEmpty)
            #expect(bob.events("push", after: mark).isEmpty)
            try alice.waitEvent("receipt") { $0.raw.contains(m) }
        }

        @Test("S3, AC-6, U3: scrolled up, new messages count below and stay unread until jump to bottom")
        func scrolledUp() throws {
            let world = try World()
            let alice = try world.connect("alice")
            let bob = try world.connect("bob")
            let c = try world.dm(alice, "bob")
            for i in 1...12 { try world.send(alice, c, "message \(i)") }
            try bob.waitState("12 unread") { $0.unread(c) == 12 }
            try bob.ok("open thread \(c)")
            // The newest page of 10 becomes visible and read; the two older ones stay unread (U3).
            try bob.waitState("two left unread") { $0.unread(c) == 2 && $0.visible.count == 10 }
            try bob.ok("scroll up 5")
            try bob.waitState("older two read after scrolling up") { $0.unread(c) == 0 && ($0.viewport?["atBottom"] as? Bool) == false }
            let m = try world.send(alice, c, "while scrolled up")
            let state = try bob.waitState("new below") { ($0.viewport?["newBelow"] as? Int) == 1 }
            #expect(!state.visible.contains(m), "no forced scroll (S3)")
            #expect(state.unread(c) == 1)
            try bob.ok("scroll bottom")
            let after = try bob.waitState("read at bottom") { $0.unread(c) == 0 }
            #expect(after.visible.contains(m))
            #expect((after.viewport?["newBelow"] as? Int) == 0)
        }

        @Test("S4, M2, AC-2, AC-3: in the list the row moves to the top, unread rises, a toast shows; badge is the sum")
        func inList() throws {
            let world = try World()
            let alice = try world.connect("alice")
            let carol = try world.connect("carol")
            let bob = try world.connect("bob")
            let withAlice = try world.dm(alice, "bob")
            let withCarol = try world.dm(carol, "bob")
            let mark = bob.mark
            try world.send(alice, withAlice, "from alice")
            try bob.waitState("alice's row on top") { $0.conversationOrder.first == withAlice && $0.unread(withAlice) == 1 }
            try world.send(carol, withCarol, "from carol")
            let state = try bob.waitState("carol's row on top") { $0.conversationOrder.first == withCarol && $0.unread(withCarol) == 1 }
            #expect(state.int("badge") == 2)
            #expect(state.string("badgeText") == "2")
            #expect(state.string("anchor") == "messages.conversationsList")
            let shown = try bob.waitEvent("toast.shown", after: mark)
            #expect(shown.raw.contains("Alice"))
            #expect(bob.events("push", after: mark).isEmpty, "S4: in-app toast, never a push")
        }

        @Test("S5, M3: in another thread, another tab or the bell feed, unread rises and a toast shows; no push")
        func elsewhereInForeground() throws {
            let world = try World()
            let alice = try world.connect("alice")
            let carol = try world.connect("carol")
            let bob = try world.connect("bob")
            let withAlice = try world.dm(alice, "bob")
            let withCarol = try world.dm(carol, "bob")
            try bob.waitState("both known") { $0.conversationOrder.count == 2 }
            for scene in ["open thread \(withCarol)", "open tab requests", "open notifications"] {
                try bob.ok(scene)
                let mark = bob.mark
                let before = try bob.state().unread(withAlice) ?? 0
                let m = try world.send(alice, withAlice, "while bob is at \(scene)")
                try bob.waitEvent("toast.shown", after: mark) { $0.raw.contains(withAlice) }
                try bob.waitState("unread rose at \(scene)") { $0.unread(withAlice) == before + 1 }
                #expect(bob.events("push", after: mark).isEmpty, "S5/P3: no push to a foreground device")
                #expect(bob.events("message", after: mark).contains { $0.string("message") == m })
                try bob.command("toast swipe")
            }
        }

        @Test("S6: in the background, no toast; a push arrives instead")
        func background() throws {
            let world = try World()
            let alice = try world.connect("alice")
            let bob = try world.connect("bob")
            let c = try world.dm(alice, "bob")
            try bob.waitState("bob knows c") { $0.conversationOrder.contains(c) }
            try bob.ok("background")
            let mark = bob.mark
            let m = try world.send(alice, c, "are you there?")
            let push = try bob.waitEvent("push", after: mark)
            #expect(push.raw.contains(m))
            #expect(bob.events("toast.shown", after: mark).isEmpty)
            let state = try bob.state()
            #expect(state.string("scene") == "background")
            #expect(state.bool("foreground") == false)
            #expect(state.unread(c) == 1)
        }

        @Test("S7: the sender's own message raises nothing for the sender and still reaches the sender's other device")
        func ownMessages() throws {
            let world = try World()
            let phone = try world.connect("alice")
            let laptop = try world.connect("alice")
            let bob = try world.connect("bob")
            let c = try world.dm(phone, "bob")
            try laptop.waitState("laptop knows c") { $0.conversationOrder.contains(c) }
            let mark = laptop.mark
            let m = try world.send(phone, c, "from my phone")
            try laptop.waitEvent("message", after: mark) { $0.string("message") == m }
            try bob.waitEvent("message") { $0.string("message") == m }
            let state = try laptop.waitState("preview updated") { $0.raw.contains("from my phone") }
            #expect(state.unread(c) == 0)
            #expect(state.int("badge") == 0)
            #expect(laptop.events("toast.shown", after: mark).isEmpty)
            #expect(phone.events("toast.shown").isEmpty)
        }
    }
}
