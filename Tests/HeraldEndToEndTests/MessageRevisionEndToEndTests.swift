import Foundation
import HeraldTestSupport
import Testing

extension EndToEnd {
    /// Rules M1-M3: a message edited or unsent after it was sent, seen by real `herald --script` devices.
    @Suite("M: edit and unsend")
    struct MessageRevision {
        /// The `lastPreview` of conversation `c` in a state line.
        static func preview(_ state: OutputLine, _ c: String) -> String? {
            ((state.array("conversations") as? [[String: Any]]) ?? []).first { $0["id"] as? String == c }?["lastPreview"] as? String
        }

        static func viewportList(_ state: OutputLine, _ key: String) -> [String] { (state.viewport?[key] as? [String]) ?? [] }

        @Test("M1: an edit reaches the list preview and the thread marked edited, alerts nobody and leaves unread alone")
        func editEverywhere() throws {
            let world = try World()
            let alice = try world.connect("alice")
            let bob = try world.connect("bob")
            let c = try world.dm(alice, "bob")
            let m = try world.send(alice, c, "see you at 5")
            try bob.waitState("unread, previewed") { $0.unread(c) == 1 && Self.preview($0, c) == "see you at 5" }
            let mark = bob.mark
            let answer = try alice.ok("edit \(m) see you at 6")
            #expect(answer.string("message") == m)
            #expect(answer.string("conversation") == c)
            let edited = try bob.waitEvent("message.edited", after: mark)
            #expect(edited.string("message") == m)
            #expect(edited.string("text") == "see you at 6")
            #expect(edited.int("seq") != nil, "an edit is a stream event")
            let state = try bob.waitState("new preview") { Self.preview($0, c) == "see you at 6" }
            #expect(state.unread(c) == 1, "M1: an edit never changes unread state")
            #expect(state.int("badge") == 1)
            #expect(bob.events("toast.shown", after: mark).isEmpty, "M1: an edit never alerts")
            try bob.ok("open thread \(c)")
            let thread = try bob.waitState("shown edited") { Self.viewportList($0, "edited") == [m] }
            #expect(thread.visible.contains(m))
            let history = bob.events("history", after: mark).last
            let shown = (history?.array("messages") as? [[String: Any]])?.first { $0["message"] as? String == m }
            #expect(shown?["text"] as? String == "see you at 6")
            #expect(shown?["edited"] as? Bool == true)
        }

        @Test("M1, T5: an edit updates the visible and the queued toast in place: no new toast, no restarted timer")
        func editUpdatesToasts() throws {
            let world = try World()
            let alice = try world.connect("alice")
            let carol = try world.connect("carol")
            let bob = try world.connect("bob", toastDuration: 10)
            let withCarol = try world.dm(carol, "bob")
            let withAlice = try world.dm(alice, "bob")
            try bob.waitState("both known") { $0.conversationOrder.count == 2 }
            let mark = bob.mark
            let fromCarol = try world.send(carol, withCarol, "lunch?")
            let visible = try bob.waitEvent("toast.shown", after: mark)
            let fromAlice = try world.send(alice, withAlice, "meeting moved")
            let queued = try bob.waitState("queued behind carol's") { $0.array("toastQueue")?.count == 1 }
            let queuedId = (queued.array("toastQueue") as? [[String: Any]])?.first?["id"] as? String
            try alice.ok("edit \(fromAlice) meeting moved to 3pm")
            let updated = try bob.waitEvent("toast.updated", after: mark) { $0.string("id") == queuedId }
            #expect(updated.string("text") == "meeting moved to 3pm")
            try carol.ok("edit \(fromCarol) lunch at noon?")
            let updatedVisible = try bob.waitEvent("toast.updated", after: mark) { $0.string("id") == visible.string("id") }
            #expect(updatedVisible.string("text") == "lunch at noon?")
            let state = try bob.state()
            #expect(state.toast?["id"] as? String == visible.string("id"), "still the same visible toast")
            #expect(state.toast?["count"] as? Int == 1)
            let waiting = (state.array("toastQueue") as? [[String: Any]]) ?? []
            #expect(waiting.map { $0["id"] as? String } == [queuedId], "updated where it waits, not queued again")
            #expect(waiting.first?["text"] as? String == "meeting moved to 3pm")
            #expect(bob.events("toast.shown", after: mark).count == 1, "no new toast appeared")
            #expect(bob.events("toast.dismissed", after: mark).isEmpty, "T5 without restart: nothing was dismissed and raised again")
        }

        @Test("M1, P4: a push still in its grace carries the edited text; one already delivered is not repeated")
        func editBeforeAndAfterPush() throws {
            let world = try World(pushGrace: 1.5)
            let alice = try world.connect("alice")
            let phone = try world.connect("bob")
            let c = try world.dm(alice, "bob")
            try phone.waitState("phone knows c") { $0.conversationOrder.contains(c) }
            try phone.ok("background")
            let mark = phone.mark
            let m = try world.send(alice, c, "draft")
            try alice.ok("edit \(m) final words")
            let push = try phone.waitEvent("push", after: mark, timeout: .seconds(15))
            #expect(push.string("message") == m)
            #expect(push.string("preview") == "final words", "the push that had not gone out reads the new text")
            let afterPush = phone.mark
            try alice.ok("edit \(m) final words, really")
            try phone.waitEvent("message.edited", after: afterPush) { $0.string("text") == "final words, really" }
            // A control message's push proves the order: nothing else came for m before it.
            let control = try world.send(alice, c, "control")
            try phone.waitEvent("push", after: afterPush) { $0.string("message") == control }
            #expect(phone.events("push", after: mark).compactMap { $0.string("message") } == [m, control], "the edit did not alert again")
        }

        @Test("M2, U7, P5: unsending an unread message drops the background device's badge with a newer seq and withdraws its push")
        func unsendUnreadOnBackgroundDevice() throws {
            let world = try World()
            let alice = try world.connect("alice")
            let phone = try world.connect("bob")
            let c = try world.dm(alice, "bob")
            try phone.waitState("phone knows c") { $0.conversationOrder.contains(c) }
            try phone.ok("background")
            let mark = phone.mark
            try world.send(alice, c, "earlier")
            let m = try world.send(alice, c, "oops, wrong chat")
            try phone.waitEvent("push", after: mark) { $0.string("message") == m }
            try phone.waitState("two unread") { $0.unread(c) == 2 && $0.int("badge") == 2 }
            let arrivedSeq = phone.events("message", after: mark).compactMap { $0.int("seq") }.max() ?? 0
            let answer = try alice.ok("unsend \(m)")
            #expect(answer.string("message") == m)
            let unsent = try phone.waitEvent("message.unsent", after: mark)
            #expect(unsent.string("message") == m)
            #expect(unsent.int("unread") == 1)
            #expect(unsent.int("badge") == 1)
            #expect((unsent.int("seq") ?? 0) > arrivedSeq, "U7: the lower count comes with a newer seq")
            try phone.waitEvent("push.cleared", after: mark) { $0.string("message") == m }
            let state = try phone.waitState("one left, its push gone") { state in
                state.int("badge") == 1 && !state.pushes.contains { $0["message"] as? String == m }
            }
            #expect(state.pushes.count == 1, "the earlier message's push stays")
            #expect(state.unread(c) == 1)
            #expect(Self.preview(state, c) == "earlier", "M2: the list preview goes back to the message before")
        }

        @Test("M2: the toast goes, the thread keeps a placeholder on every device, the list falls back")
        func unsendToastAndPlaceholder() throws {
            let world = try World()
            let alice = try world.connect("alice")
            let bob = try world.connect("bob", toastDuration: 10)
            let c = try world.dm(alice, "bob")
            let first = bob.mark
            let before = try world.send(alice, c, "hello")
            // The first message's toast goes first, so the next one is a toast of its own (not coalesced, T5).
            try bob.waitEvent("toast.shown", after: first)
            try bob.ok("toast swipe")
            let mark = bob.mark
            let m = try world.send(alice, c, "secret")
            let toast = try bob.waitEvent("toast.shown", after: mark) { $0.raw.contains("secret") }
            try alice.ok("unsend \(m)")
            let dismissed = try bob.waitEvent("toast.dismissed", after: mark)
            #expect(dismissed.string("id") == toast.string("id"))
            #expect(dismissed.string("reason") == "withdrawn")
            let state = try bob.waitState("preview back") { Self.preview($0, c) == "hello" }
            #expect(state.toast == nil)
            #expect(state.unread(c) == 1)
            try bob.ok("open thread \(c)")
            let thread = try bob.waitState("placeholder shown") { Self.viewportList($0, "unsent") == [m] }
            #expect(thread.visible.contains(before))
            let history = bob.events("history", after: mark).last
            let shown = (history?.array("messages") as? [[String: Any]])?.first { $0["message"] as? String == m }
            #expect(shown?["unsent"] as? Bool == true)
            #expect(shown?["text"] == nil || shown?["text"] is NSNull, "no text is left")
            try alice.ok("open thread \(c)")
            try alice.waitState("sender sees the placeholder too") { Self.viewportList($0, "unsent") == [m] }
            #expect(try bob.waitState("read") { $0.unread(c) == 0 }.int("badge") == 0)
        }

        @Test("M3: a device that was away gets the edits and the unsend by resume, in order, once; its push is withdrawn")
        func resumeAfterBeingAway() throws {
            let world = try LockedPhone.world()
            let alice = try world.connect("alice")
            try world.createUser("bob")
            let c = try world.dm(alice, "bob")
            let phone = try LockedPhone.lockedPhone(world, "bob")
            let mark = phone.mark
            let kept = try world.send(alice, c, "first try")
            let gone = try world.send(alice, c, "never mind")
            try phone.waitEvent("push", after: mark) { $0.string("message") == gone }
            try alice.ok("edit \(kept) second try")
            try alice.ok("edit \(kept) third try")
            try alice.ok("unsend \(gone)")
            try phone.waitEvent("push.cleared", after: mark) { $0.string("message") == gone }
            let away = phone.mark
            try phone.ok("unlock")
            try phone.waitConnected(after: away, timeout: .seconds(15))
            let connected = phone.events("connected", after: away).last
            #expect(connected?.string("mode") == "resume")
            let state = try phone.waitState("one unread") { $0.unread(c) == 1 && $0.int("badge") == 1 }
            #expect(Self.preview(state, c) == "third try")
            let changes = (phone.events("message.edited", after: away) + phone.events("message.unsent", after: away))
                .sorted { ($0.int("seq") ?? 0) < ($1.int("seq") ?? 0) }
            #expect(changes.map { "\($0.event ?? "") \($0.string("message") ?? "") \($0.string("text") ?? "")" } == [
                "message.edited \(kept) second try", "message.edited \(kept) third try", "message.unsent \(gone) ",
            ], "in order, exactly once")
            let seqs = changes.compactMap { $0.int("seq") }
            #expect(seqs.count == 3 && Set(seqs).count == 3, "each with its own seq")
        }

        @Test("M1, M2, P4: a locked phone's push still in its grace says the edited text; a message unsent in its grace never alerts")
        func lockedPhoneDuringGrace() throws {
            let world = try LockedPhone.world(pushGrace: 1.5)
            let alice = try world.connect("alice")
            try world.createUser("bob")
            let c = try world.dm(alice, "bob")
            let phone = try LockedPhone.lockedPhone(world, "bob")
            let mark = phone.mark
            let edited = try world.send(alice, c, "typo")
            try alice.ok("edit \(edited) no typo")
            let unsent = try world.send(alice, c, "wrong chat")
            try alice.ok("unsend \(unsent)")
            let control = try world.send(alice, c, "control")
            // The control's push comes last (pushes go out in order): what came before it is all there will be.
            try phone.waitEvent("push", after: mark, timeout: .seconds(15)) { $0.string("message") == control }
            let pushes = phone.events("push", after: mark)
            #expect(pushes.compactMap { $0.string("message") } == [edited, control], "nothing for the unsent message")
            #expect(pushes.first?.string("preview") == "no typo")
            #expect(pushes.last?.int("badge") == 2, "U5: the unsent message is not counted")
        }

        @Test("M1, M2: someone else's message, a sixth edit, past the time limit, an unknown id: clear errors, nothing changes")
        func refusals() throws {
            let world = try World()
            let alice = try world.connect("alice")
            let bob = try world.connect("bob")
            let c = try world.dm(alice, "bob")
            let m = try world.send(alice, c, "version 0")
            let mark = bob.mark
            let notMine = try bob.command("edit \(m) hijacked")
            #expect(notMine.type == "error")
            #expect(notMine.string("code") == "forbidden")
            #expect(try bob.command("unsend \(m)").string("code") == "forbidden")
            #expect(try bob.command("edit m999999 nothing").string("code") == "not_found")
            for round in 1...5 { try alice.ok("edit \(m) version \(round)") }
            let sixth = try alice.command("edit \(m) version 6")
            #expect(sixth.string("code") == "too_many_edits")
            #expect(sixth.string("message")?.contains("5") == true)
            // A retry of the last edit is answered alike and announced once.
            try alice.ok("edit \(m) version 5")
            let control = try world.send(alice, c, "control")
            try bob.waitEvent("message", after: mark) { $0.string("message") == control }
            let edits = bob.events("message.edited", after: mark).compactMap { $0.string("text") }
            #expect(edits == (1...5).map { "version \($0)" }, "bob's and the sixth edit changed nothing; the retry announced nothing")
            #expect(bob.events("message.unsent", after: mark).isEmpty)
        }

        @Test("M1, M2: past --edit-window-seconds and --unsend-window-seconds an edit and an unsend are refused with too_late")
        func tooLate() throws {
            let world = try World(serverArguments: ["--edit-window-seconds", "0", "--unsend-window-seconds", "0"])
            let alice = try world.connect("alice")
            let bob = try world.connect("bob")
            let c = try world.dm(alice, "bob")
            let m = try world.send(alice, c, "carved in stone")
            let mark = bob.mark
            // With windows of 0 s only a change in the very millisecond of the send would pass: let that one go by.
            let sentBy = Date()
            while Date().timeIntervalSince(sentBy) < 0.002 {}
            let edit = try alice.command("edit \(m) softened")
            #expect(edit.string("code") == "too_late")
            #expect(edit.string("message")?.contains("edited only within 0 seconds") == true)
            #expect(try alice.command("unsend \(m)").string("code") == "too_late")
            let control = try world.send(alice, c, "control")
            try bob.waitEvent("message", after: mark) { $0.string("message") == control }
            #expect(bob.events("message.edited", after: mark).isEmpty)
            #expect(bob.events("message.unsent", after: mark).isEmpty)
            try bob.ok("open thread \(c)")
            let state = try bob.waitState("both shown") { $0.visible.contains(m) && $0.visible.contains(control) }
            #expect(Self.viewportList(state, "edited").isEmpty)
            #expect(Self.viewportList(state, "unsent").isEmpty)
        }
    }
}
