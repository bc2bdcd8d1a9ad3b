import Foundation
import HeraldTestSupport
import Testing

extension EndToEnd {
    /// Rules N1-N4 through real `herald --script` processes, with the P, S, T and U rules they change.
    @Suite("N: mute, mentions, quiet hours, mark unread")
    struct AlertSettings {
        /// The `state` line's row of conversation `id`.
        private static func row(_ state: OutputLine, _ id: String) -> [String: Any]? {
            ((state.array("conversations") as? [[String: Any]]) ?? []).first { $0["id"] as? String == id }
        }

        private static func flag(_ state: OutputLine, _ id: String, _ key: String) -> Bool {
            (row(state, id)?[key] as? NSNumber)?.boolValue ?? false
        }

        @Test("N1: a mute reaches the user's other device; a muted conversation gets no push and no toast but still counts unread")
        func muteSilencesButCounts() throws {
            let world = try World()
            let alice = try world.connect("alice")
            let carol = try world.connect("carol")
            let phone = try world.connect("bob")
            let laptop = try world.connect("bob")
            let c = try world.dm(alice, "bob")
            try laptop.waitState("laptop knows c") { $0.conversationOrder.contains(c) }
            try phone.ok("mute \(c)")
            try laptop.waitState("N1: muted on the other device within a second", timeout: .seconds(2)) { Self.flag($0, c, "muted") }
            try phone.ok("background")
            let phoneMark = phone.mark
            let laptopMark = laptop.mark
            let m = try world.send(alice, c, "nobody is alerted")
            try laptop.waitState("U1: still unread") { $0.unread(c) == 1 && $0.int("badge") == 1 }
            // Pushes go out in deadline order: once the later, unmuted conversation's push is here, c's would be too.
            let other = try world.dm(carol, "bob")
            let later = try world.send(carol, other, "this one alerts")
            try phone.waitEvent("push", after: phoneMark) { $0.raw.contains(later) }
            try laptop.waitEvent("message", after: laptopMark) { $0.raw.contains(m) }
            #expect(!phone.events("push", after: phoneMark).contains { $0.raw.contains(m) }, "N1: no push for a muted conversation")
            #expect(!laptop.events("toast.shown", after: laptopMark).contains { $0.raw.contains(c) }, "N1: no toast for a muted conversation")
            // Unmuted, alerts come back.
            try laptop.ok("unmute \(c)")
            try phone.waitState("unmuted on the phone") { !Self.flag($0, c, "muted") }
            try world.send(alice, c, "now you hear me")
            try phone.waitEvent("push", after: phoneMark)
        }

        @Test("N2: a mention in a muted group alerts the mentioned user (push and elevated toast, mentioned: true); others and @strangers stay plain")
        func mentionInMutedGroup() throws {
            let world = try World()
            let alice = try world.connect("alice")
            let phone = try world.connect("bob")
            let laptop = try world.connect("bob")
            let carol = try world.connect("carol")
            let g = try world.group(alice, title: "Team", ["bob", "carol"])
            try laptop.waitState("laptop knows g") { $0.conversationOrder.contains(g) }
            try carol.waitState("carol knows g") { $0.conversationOrder.contains(g) }
            try laptop.ok("mute \(g) 60")
            try phone.waitState("muted on the phone") { Self.flag($0, g, "muted") }
            try phone.ok("background")
            let phoneMark = phone.mark
            let laptopMark = laptop.mark
            let carolMark = carol.mark
            try world.send(alice, g, "plain news for @dave")
            let m = try world.send(alice, g, "@bob please review")
            let push = try phone.waitEvent("push", after: phoneMark) { $0.raw.contains(m) }
            #expect(push.bool("mentioned") == true)
            let toast = try laptop.waitState("elevated toast on the laptop") { ($0.toast?["conversation"] as? String) == g }.toast
            #expect(toast?["priority"] as? String == "elevated")
            #expect((toast?["mentioned"] as? NSNumber)?.boolValue == true)
            let shown = try carol.waitEvent("toast.shown", after: carolMark)
            #expect(!shown.raw.contains("\"mentioned\""), "carol was not mentioned: a plain toast")
            #expect(phone.events("push", after: phoneMark).count == 1, "N1: only the mention alerted the muted group")
            #expect(laptop.events("toast.shown", after: laptopMark).count == 1)
            try laptop.waitState("U1: both still count") { $0.unread(g) == 2 }
        }

        @Test("N2: a thread's history carries what the live message event carried: mentions, and mentioned for the mentioned user only")
        func historyCarriesMentions() throws {
            let world = try World()
            let alice = try world.connect("alice")
            let bob = try world.connect("bob")
            try world.createUser("carol")
            let g = try world.group(alice, title: "Team", ["bob", "carol"])
            let mark = bob.mark
            let m = try world.send(alice, g, "@bob please review, @dave too")
            let plain = try world.send(alice, g, "thanks all")
            let live = try bob.waitEvent("message", after: mark) { $0.string("message") == m }
            #expect(live.array("mentions") as? [String] == ["bob"], "@dave is not in the group: plain text")
            #expect(live.bool("mentioned") == true)
            try bob.waitEvent("message", after: mark) { $0.string("message") == plain }

            // Fresh devices load the thread from history: the same fields, per recipient.
            for (user, mentioned) in [("bob", true), ("carol", false)] {
                let device = try world.connect(user)
                try device.waitState("\(user) knows g") { $0.conversationOrder.contains(g) }
                let before = device.mark
                try device.ok("open thread \(g)")
                let history = try device.waitEvent("history", after: before) { $0.string("conversation") == g }
                let messages = (history.array("messages") as? [[String: Any]]) ?? []
                let shown = try #require(messages.first { $0["message"] as? String == m }, "\(messages)")
                #expect(shown["mentions"] as? [String] == ["bob"], "\(user)")
                #expect((shown["mentioned"] as? Bool) == (mentioned ? true : nil), "\(user)")
                let other = try #require(messages.first { $0["message"] as? String == plain })
                #expect(other["mentions"] == nil && other["mentioned"] == nil, "a message without mentions carries neither")
            }
        }

        @Test("N3: with quiet hours on a push arrives marked quiet with the badge; a normal toast waits until quiet hours end")
        func quietHours() throws {
            let world = try World()
            let alice = try world.connect("alice")
            let phone = try world.connect("bob")
            let laptop = try world.connect("bob")
            let c = try world.dm(alice, "bob")
            try laptop.waitState("laptop knows c") { $0.conversationOrder.contains(c) }
            try phone.ok("quiet on")
            try laptop.waitState("quiet on the laptop too") { $0.bool("quiet") == true }
            try phone.ok("background")
            let phoneMark = phone.mark
            let m = try world.send(alice, c, "shh")
            let push = try phone.waitEvent("push", after: phoneMark) { $0.raw.contains(m) }
            #expect(push.bool("quiet") == true)
            #expect(push.int("badge") == 1, "N3: the badge is not affected")
            let waiting = try laptop.waitState("the toast waits") { !($0.array("toastQueue") ?? []).isEmpty }
            #expect(waiting.toast == nil)
            try laptop.ok("quiet off")
            let shown = try laptop.waitState("shown once quiet hours end") { ($0.toast?["conversation"] as? String) == c }
            #expect(shown.toast?["priority"] as? String == "normal")
        }

        @Test("N4, U7: mark unread counts one in the badge on every device; a visible message of c clears it everywhere")
        func markUnreadThenVisible() throws {
            let world = try World()
            let alice = try world.connect("alice")
            let phone = try world.connect("bob")
            let laptop = try world.connect("bob")
            let c = try world.dm(alice, "bob")
            let m = try world.send(alice, c, "read me")
            try phone.ok("open thread \(c)")
            try laptop.waitState("read everywhere") { $0.unread(c) == 0 && $0.int("badge") == 0 }
            try phone.ok("open list")
            let laptopMark = laptop.mark
            try phone.ok("mark-unread \(c)")
            let marked = try laptop.waitState("marked on the laptop") { Self.flag($0, c, "markedUnread") && $0.int("badge") == 1 }
            #expect(marked.unread(c) == 0, "N4: the conversation's own count is unchanged")
            let event = try laptop.waitEvent("settings", after: laptopMark) { $0.bool("markedUnread") == true }
            #expect(event.int("seq") != nil, "U7: the change carries its seq")
            #expect(event.int("badge") == 1)
            #expect(try phone.state().int("badge") == 1)
            // The message becomes visible again: the mark ends on both devices, and no push comes back (P5 stays).
            try laptop.ok("open thread \(c)")
            try phone.waitState("cleared on the phone") { !Self.flag($0, c, "markedUnread") && $0.int("badge") == 0 }
            #expect(try laptop.state().visible.contains(m))
            #expect(phone.events("push", after: 0).isEmpty)
        }

        @Test("N1, R5: muting or marking a conversation one is not in answers not_participant; a bad duration is refused; nothing changes")
        func badInput() throws {
            let world = try World()
            let alice = try world.connect("alice")
            let carol = try world.connect("carol")
            _ = try world.connect("bob")
            let c = try world.dm(alice, "bob")
            let refused = try carol.command("mute \(c)")
            #expect(refused.type == "error" && refused.string("code") == "not_participant", "\(refused.raw)")
            let unmarked = try carol.command("mark-unread \(c)")
            #expect(unmarked.type == "error" && unmarked.string("code") == "not_participant", "\(unmarked.raw)")
            for bad in ["mute \(c) 0", "mute \(c) soon", "mute \(c) -5", "quiet maybe"] {
                let answer = try alice.command(bad)
                #expect(answer.type == "error" && answer.string("code") == "bad_arguments", "\(bad): \(answer.raw)")
            }
            let state = try alice.state()
            #expect(!Self.flag(state, c, "muted") && state.bool("quiet") == false)
            #expect(alice.events("settings").isEmpty, "nothing was stored")
        }
    }
}
