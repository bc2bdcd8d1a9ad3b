import Foundation
import HeraldTestSupport
import Testing

extension EndToEnd {
    /// Rules T1-T11 and the eight toast scenarios of seed 000.
    @Suite("T: toasts")
    struct Toasts {
        /// Bob sits in a thread with alice; others message him: the seed's "Simulator A in a conversation with B".
        private func bobInThreadWithAlice(_ world: World) throws -> (bob: ClientProcess, alice: ClientProcess, thread: String) {
            let alice = try world.connect("alice")
            let bob = try world.connect("bob")
            let thread = try world.dm(alice, "bob")
            try bob.waitState("bob knows the thread") { $0.conversationOrder.contains(thread) }
            try bob.ok("open thread \(thread)")
            return (bob, alice, thread)
        }

        @Test("seed 000 #1 basic display, T2: a toast for another conversation shows name and preview, then times out")
        func basicDisplay() throws {
            let world = try World()
            let (bob, _, _) = try bobInThreadWithAlice(world)
            let carol = try world.connect("carol")
            let c = try world.dm(carol, "bob")
            let mark = bob.mark
            try world.send(carol, c, "hi from carol")
            let shown = try bob.waitEvent("toast.shown", after: mark)
            #expect(shown.raw.contains("Carol"))
            #expect(shown.raw.contains("hi from carol"))
            let dismissed = try bob.waitEvent("toast.dismissed", after: mark, timeout: .seconds(5))
            #expect(dismissed.string("reason") == "timeout")
        }

        @Test("seed 000 #2, AC-1, S1: no toast for the conversation being viewed")
        func noToastInActiveConversation() throws {
            let world = try World()
            let (bob, alice, thread) = try bobInThreadWithAlice(world)
            let mark = bob.mark
            let m = try world.send(alice, thread, "you are looking at this")
            try bob.waitEvent("message", after: mark) { $0.string("message") == m }
            _ = try bob.state()
            #expect(bob.events("toast.shown", after: mark).isEmpty)
        }

        @Test("seed 000 #3, T9, D2: tapping the toast dismisses it, then opens that conversation")
        func tapNavigates() throws {
            let world = try World()
            let (bob, _, _) = try bobInThreadWithAlice(world)
            let carol = try world.connect("carol")
            let c = try world.dm(carol, "bob")
            let mark = bob.mark
            try world.send(carol, c, "tap me")
            try bob.waitEvent("toast.shown", after: mark)
            try bob.ok("toast tap")
            let dismissed = try bob.waitEvent("toast.dismissed", after: mark)
            #expect(dismissed.string("reason") == "tap")
            try bob.waitEvent("route", after: mark)
            let state = try bob.waitState("in carol's thread") { $0.string("scene") == "thread" && $0.string("conversation") == c }
            #expect(state.string("anchor") == "messages.thread(\(c))")
            #expect(state.unread(c) == 0, "the tapped message is visible, so read")
        }

        @Test("seed 000 #4, T9: a swipe dismisses at once and goes nowhere")
        func swipeDismisses() throws {
            let world = try World()
            let (bob, _, thread) = try bobInThreadWithAlice(world)
            let carol = try world.connect("carol")
            let c = try world.dm(carol, "bob")
            let mark = bob.mark
            try world.send(carol, c, "swipe me")
            try bob.waitEvent("toast.shown", after: mark)
            try bob.ok("toast swipe")
            let dismissed = try bob.waitEvent("toast.dismissed", after: mark)
            #expect(dismissed.string("reason") == "swipe")
            let state = try bob.state()
            #expect(state.string("conversation") == thread)
            #expect(state.toast == nil)
            #expect(state.unread(c) == 1)
        }

        @Test("seed 000 #5, T1, T3: three rapid senders queue; one toast at a time, all three shown")
        func threeRapidSendersQueue() throws {
            let world = try World()
            let (bob, _, _) = try bobInThreadWithAlice(world)
            var conversations: [String] = []
            var senders: [ClientProcess] = []
            for name in ["carol", "dave", "erin"] {
                let sender = try world.connect(name)
                conversations.append(try world.dm(sender, "bob"))
                senders.append(sender)
            }
            try bob.waitState("all known") { $0.conversationOrder.count == 4 }
            let mark = bob.mark
            for (sender, c) in zip(senders, conversations) { sender.send("send \(c) hello from \(sender.name)") }
            // The three sends race each other, so wait for three shown toasts, whatever their order.
            try bob.waitEvent("toast.shown", after: mark, timeout: .seconds(15)) { _ in bob.events("toast.shown", after: mark).count >= 3 }
            // T1: every toast.shown after the first comes after the previous toast's dismissal.
            let lines = bob.lines.dropFirst(mark).filter { $0.type == "event" }
            var visible: String?
            var shownCount = 0
            for line in lines {
                if line.event == "toast.shown" {
                    #expect(visible == nil, "two toasts visible at once: \(line)")
                    visible = line.string("id") ?? (line.dict("toast")?["id"] as? String)
                    shownCount += 1
                } else if line.event == "toast.dismissed" {
                    visible = nil
                }
            }
            #expect(shownCount == 3)
        }

        @Test("seed 000 #6, T10: a long message is cut at 50 characters plus ...; the full text is the accessibility label")
        func longMessageCut() throws {
            let world = try World()
            let (bob, alice, _) = try bobInThreadWithAlice(world)
            _ = alice
            let carol = try world.connect("carol")
            let c = try world.dm(carol, "bob")
            let text = "🙂" + String(repeating: "abcdefghij", count: 10)
            let mark = bob.mark
            try world.send(carol, c, text)
            try bob.waitEvent("toast.shown", after: mark)
            let toast = try bob.waitState("toast visible") { $0.toast != nil }.toast ?? [:]
            #expect(toast["text"] as? String == String(text.prefix(50)) + "...")
            #expect(toast["accessibilityLabel"] as? String == text)
            #expect(toast["title"] as? String == "Carol")
        }

        @Test("seed 000 #7, T10: a group toast is titled 'Group title - Sender'")
        func groupFormat() throws {
            let world = try World()
            let (bob, alice, _) = try bobInThreadWithAlice(world)
            let carol = try world.connect("carol")
            let team = try world.group(alice, title: "Team A", ["bob", "carol"])
            try bob.waitState("bob knows the group") { $0.conversationOrder.contains(team) }
            let mark = bob.mark
            try world.send(carol, team, "standup now")
            try bob.waitEvent("toast.shown", after: mark)
            let toast = try bob.waitState("toast visible") { $0.toast != nil }.toast ?? [:]
            #expect(toast["title"] as? String == "Team A - Carol")
            #expect(toast["text"] as? String == "standup now")
        }

        @Test("seed 000 #8, T10: an image message reads '📷 Image'")
        func imageMessage() throws {
            let world = try World()
            let (bob, _, _) = try bobInThreadWithAlice(world)
            let carol = try world.connect("carol")
            let c = try world.dm(carol, "bob")
            let mark = bob.mark
            try carol.ok("send-image \(c) https://example.org/cat.png")
            try bob.waitEvent("toast.shown", after: mark)
            let toast = try bob.waitState("toast visible") { $0.toast != nil }.toast ?? [:]
            #expect(toast["text"] as? String == "📷 Image")
        }

        @Test("T5: messages of one conversation coalesce into one toast with the latest preview and a count")
        func coalescing() throws {
            let world = try World()
            let alice = try world.connect("alice")
            let bob = try world.connect("bob", toastDuration: 10)
            let c = try world.dm(alice, "bob")
            let mark = bob.mark
            for text in ["one", "two", "three"] { try world.send(alice, c, text) }
            let state = try bob.waitState("one toast standing for three") { ($0.toast?["count"] as? Int) == 3 }
            #expect(state.toast?["text"] as? String == "three", "the latest preview")
            #expect(state.toast?["conversation"] as? String == c)
            #expect((state.array("toastQueue") ?? []).isEmpty, "updated in place, not queued")
            #expect(bob.events("toast.shown", after: mark).count == 1)
            #expect(bob.events("toast.updated", after: mark).count == 2)
        }

        @Test("T8: entering thread(c) removes the toast about c")
        func enteringThreadPurges() throws {
            let world = try World()
            let alice = try world.connect("alice")
            let bob = try world.connect("bob", toastDuration: 10)
            let c = try world.dm(alice, "bob")
            let mark = bob.mark
            try world.send(alice, c, "look")
            try bob.waitEvent("toast.shown", after: mark)
            try bob.ok("open thread \(c)")
            let dismissed = try bob.waitEvent("toast.dismissed", after: mark)
            #expect(dismissed.string("reason") == "scene")
            #expect(try bob.state().toast == nil)
        }

        @Test("T4, T6, T11: local toasts overflow at five queued, critical pre-empts, kinds report haptics")
        func localToasts() throws {
            let world = try World()
            let bob = try world.connect("bob", toastDuration: 10)
            let mark = bob.mark
            try bob.ok("toast show success normal saved")
            try bob.waitEvent("haptic", after: mark) { $0.raw.contains("success") }
            for i in 1...6 { try bob.ok("toast show info normal queued \(i)") }
            let overflow = try bob.waitEvent("toast.dismissed", after: mark) { $0.string("reason") == "overflow" }
            #expect(overflow.string("id") != nil)
            #expect((try bob.state().array("toastQueue") ?? []).count == 5)
            try bob.ok("toast show error critical failed")
            let replaced = try bob.waitEvent("toast.dismissed", after: mark) { $0.string("reason") == "replaced" }
            #expect(replaced.string("id") != nil)
            let state = try bob.waitState("critical visible") { ($0.toast?["priority"] as? String) == "critical" }
            #expect(state.toast?["kind"] as? String == "error")
            try bob.waitEvent("haptic", after: mark) { $0.raw.contains("error") }
        }

        @Test("T7: a local toast raised in the background is held and shown on return")
        func heldInBackground() throws {
            let world = try World()
            let bob = try world.connect("bob", toastDuration: 2)
            try bob.ok("background")
            let mark = bob.mark
            try bob.ok("toast show info normal while away")
            #expect(try bob.state().toast == nil)
            #expect(bob.events("toast.shown", after: mark).isEmpty)
            try bob.ok("foreground")
            try bob.waitEvent("toast.shown", after: mark) { $0.raw.contains("while away") }
        }
    }
}
