import Foundation
import HeraldTestSupport
import Testing

/// Every command and event of client-script.md against a real server.
@Suite("herald --script against a real server", .serialized)
struct ScriptModeEndToEndTests {
    @Test("dm, group, send, send-image, open, scroll, state: answers in command order, message events once each")
    func conversationCommands() throws {
        let server = try TestServer()
        let alice = try server.client("alice", arguments: ["--viewport", "3"])
        let bob = try server.client("bob")
        _ = try server.token("carol")
        let c = try #require(try alice.ok("dm bob").string("conversation"))
        #expect(try alice.ok("dm bob").string("conversation") == c, "dm finds the same conversation")
        let g = try #require(try alice.ok("group \"Team A\" bob carol").string("conversation"))
        #expect(try alice.command("dm nobody-here").type == "error")
        var sent: [String] = []
        for i in 1...6 { sent.append(try #require(try bob.ok("send \(c) line \(i)").string("message"))) }
        let image = try alice.ok("send-image \(g) https://example.org/cat.png")
        #expect(image.string("conversation") == g)
        try alice.waitState("six unread") { $0.unread(c) == 6 }
        for id in sent { #expect(alice.events("message").filter { $0.string("message") == id }.count == 1) }
        let state = try alice.state()
        #expect(state.conversationOrder == [g, c], "most recent activity first (the image went to the group last)")
        #expect((state.array("conversations") as? [[String: Any]])?.first { $0["id"] as? String == g }?["title"] as? String == "Team A")
        #expect(state.string("badgeText") == "6")

        // U3: a viewport of 3 reads exactly the 3 newest.
        let opened = try alice.ok("open thread \(c)")
        #expect(opened.type == "ok")
        var thread = try alice.waitState("three read") { $0.unread(c) == 3 }
        #expect(thread.visible == Array(sent.suffix(3)))
        #expect(thread.string("anchor") == "messages.thread(\(c))")
        try alice.ok("scroll up 2")
        thread = try alice.waitState("one left") { $0.unread(c) == 1 }
        #expect((thread.dict("viewport")?["atBottom"] as? Bool) == false)
        try alice.ok("scroll up 10")
        try alice.waitState("none left") { $0.unread(c) == 0 && $0.visible.first == sent[0] }
        try alice.ok("scroll bottom")
        try alice.ok("scroll down 1")
        // S3: scrolled up, a new message waits below.
        try alice.ok("scroll up 1")
        let mark = alice.mark
        let late = try #require(try bob.ok("send \(c) below").string("message"))
        try alice.waitEvent("message", after: mark) { $0.string("message") == late }
        thread = try alice.waitState("new below") { ($0.dict("viewport")?["newBelow"] as? Int) == 1 }
        #expect(alice.events("toast.shown", after: mark).isEmpty, "S1: no toast in the viewed thread")
        try alice.ok("scroll bottom")
        try alice.waitState("all read") { $0.unread(c) == 0 && $0.visible.contains(late) }

        // Scenes.
        try alice.ok("open tab settings")
        #expect(try alice.state().string("tab") == "settings")
        try alice.ok("open notifications")
        #expect(try alice.state().string("anchor") == "notifications.feed")
        try alice.ok("open list")
        #expect(try alice.state().string("anchor") == "messages.conversationsList")
        #expect(try alice.command("open thread c999").string("code") == "not_participant")
        #expect(try alice.command("send c999 hi").string("code") == "not_participant")
        #expect(try alice.command("flap").string("code") == "unknown_command")
        #expect(alice.quit() == 0)
        #expect(bob.quit() == 0)
    }

    @Test("toasts: toast show/tap/swipe/action, toast.shown, toast.dismissed (timeout, tap, swipe, overflow), haptic, route")
    func toastCommands() throws {
        let server = try TestServer()
        let alice = try server.client("alice", toastDuration: 1)
        let bob = try server.client("bob")
        let c = try #require(try bob.ok("dm alice").string("conversation"))
        var mark = alice.mark
        try alice.ok("toast show success normal Saved")
        let shown = try alice.waitEvent("toast.shown", after: mark)
        #expect(shown.string("kind") == "success")
        #expect(try alice.waitEvent("haptic", after: mark).string("name") == "success")
        try alice.waitEvent("toast.dismissed", after: mark) { $0.string("reason") == "timeout" }
        #expect(try alice.command("toast action").type == "error")
        mark = alice.mark
        try alice.ok("toast show warning normal Careful")
        try alice.waitEvent("toast.shown", after: mark)
        try alice.ok("toast swipe")
        try alice.waitEvent("toast.dismissed", after: mark) { $0.string("reason") == "swipe" }
        #expect(try alice.command("toast tap").string("code") == "no_toast")
        // T4: six waiting behind a visible one: the oldest waiting is dropped with reason overflow.
        mark = alice.mark
        for i in 0...6 { try alice.ok("toast show info normal n\(i)") }
        try alice.waitEvent("toast.dismissed", after: mark) { $0.string("reason") == "overflow" }
        // S4 + T9: a message toast; tapping it routes to the thread.
        try alice.waitState("queue drained", timeout: .seconds(20)) { $0.toast == nil && (($0.array("toastQueue")?.isEmpty) ?? false) }
        mark = alice.mark
        try bob.ok("send \(c) tap me")
        try alice.waitEvent("toast.shown", after: mark) { $0.string("conversation") == c }
        try alice.ok("toast tap")
        try alice.waitEvent("toast.dismissed", after: mark) { $0.string("reason") == "tap" }
        let route = try alice.waitEvent("route", after: mark)
        #expect(route.string("url") == "herald://conversation/\(c)")
        try alice.waitState("in thread") { $0.string("scene") == "thread" && $0.string("conversation") == c }
    }

    @Test("background, push, push tap, foreground, open-url, read, receipt, follow, react, bell read, bell read-all, sleep")
    func pushBellAndLinks() throws {
        let server = try TestServer(pushGrace: 0)
        let alice = try server.client("alice")
        let bob = try server.client("bob")
        let c = try #require(try bob.ok("dm alice").string("conversation"))
        try alice.waitState("knows c") { $0.conversationOrder.contains(c) }
        try alice.ok("open tab home")
        try alice.ok("background")
        #expect(try alice.state().string("scene") == "background")
        var mark = alice.mark
        let m = try #require(try bob.ok("send \(c) wake up").string("message"))
        let push = try alice.waitEvent("push", after: mark)
        #expect(push.string("message") == m)
        #expect(push.string("url") == "herald://conversation/\(c)")
        #expect(alice.events("toast.shown", after: mark).isEmpty, "S6: no toast in the background")
        try alice.ok("foreground")
        #expect(try alice.state().string("tab") == "home", "back to the scene it left")
        try alice.ok("background")
        let bobMark = bob.mark
        try alice.ok("push tap")
        let state = try alice.waitState("thread via push") { $0.string("scene") == "thread" && $0.visible.contains(m) }
        #expect(state.bool("foreground") == true)
        #expect((state.array("pushes") ?? []).isEmpty)
        try alice.waitEvent("read", after: mark)
        try bob.waitEvent("receipt", after: bobMark) { $0.string("message") == m && $0.string("reader") == "alice" }
        #expect(try alice.command("push tap").string("code") == "no_push")

        // open-url
        #expect(try alice.command("open-url herald://bogus").string("code") == "invalid_link")
        try alice.ok("open-url herald://messages")
        #expect(try alice.state().string("scene") == "list")

        // Bell: follow and react create notifications for the other user (B1-B3).
        mark = alice.mark
        let followed = try bob.ok("follow alice")
        #expect(followed.string("notification") != nil)
        let mine = try #require(try alice.ok("send \(c) react to this").string("message"))
        try bob.waitEvent("message") { $0.string("message") == mine }
        try bob.ok("react \(mine) 👍")
        let bell = try alice.waitEvent("bell", after: mark) { $0.bool("pulse") == true }
        #expect(bell.int("unread") ?? 0 >= 1)
        let two = try alice.waitState("two bell items") { ($0.dict("bell")?["unread"] as? Int) == 2 }
        let items = two.dict("bell")?["items"] as? [[String: Any]] ?? []
        let first = try #require(items.first?["id"] as? String)
        try alice.ok("bell read \(first)")
        try alice.waitState("one unread") { ($0.dict("bell")?["unread"] as? Int) == 1 }
        try alice.ok("bell read-all")
        try alice.waitState("none unread") { ($0.dict("bell")?["unread"] as? Int) == 0 && ($0.dict("bell")?["badgeText"] as? String) == "" }

        // sleep keeps processing events, and the next command waits for it.
        mark = alice.mark
        alice.send("sleep 300")
        try bob.ok("send \(c) during sleep")
        try alice.waitEvent("message", after: mark) { $0.string("text") == "during sleep" }
        let slept = try alice.command("state")
        #expect(slept.type == "state")
        #expect(alice.lines.dropFirst(mark).contains { $0.type == "ok" && $0.string("cmd") == "sleep" })
    }

    @Test("R3, R4: the client survives a server restart mid-conversation: reconnects, resumes, every message exactly once")
    func serverRestart() throws {
        let server = try TestServer()
        let alice = try server.client("alice")
        let bob = try server.client("bob")
        let c = try #require(try bob.ok("dm alice").string("conversation"))
        var expected: [String] = []
        for i in 1...3 { expected.append(try #require(try bob.ok("send \(c) before \(i)").string("message"))) }
        let aliceMark = alice.mark
        let bobMark = bob.mark
        try server.restart()
        try alice.waitEvent("disconnected", after: aliceMark)
        try alice.waitEvent("connected", after: aliceMark, timeout: .seconds(15))
        try bob.waitEvent("connected", after: bobMark, timeout: .seconds(15))
        for i in 1...3 { expected.append(try #require(try bob.ok("send \(c) after \(i)").string("message"))) }
        // A send issued while the server is down waits in the queue and is delivered once it is back.
        let downMark = alice.mark
        server.kill()
        try bob.waitEvent("disconnected", after: bobMark)
        let queuedAnswer = try bob.ok("send \(c) while down")
        #expect(queuedAnswer.bool("queued") == true)
        #expect(try bob.state().bool("connected") == false, "state answers while the server is away")
        try server.restart()
        try alice.waitEvent("connected", after: downMark, timeout: .seconds(15))
        let queued = try alice.waitEvent("message", after: downMark, timeout: .seconds(15)) { $0.string("text") == "while down" }
        expected.append(try #require(queued.string("message")))
        try alice.waitState("all unread") { $0.unread(c) == expected.count }
        let ids = alice.events("message").compactMap { $0.string("message") }
        #expect(ids == expected, "every message exactly once, in order")
        #expect(alice.quit() == 0)
        #expect(bob.quit() == 0)
    }
}
