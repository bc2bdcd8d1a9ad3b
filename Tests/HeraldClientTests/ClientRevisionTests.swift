@testable import HeraldClient
import HeraldProtocol
import HeraldRules
import Testing

/// M1 and M2 on one device: what a `message.edited` or `message.unsent` event changes (thread, list preview, toast,
/// unread, push), the chat commands that send them, and how the thread screen shows them.
@Suite("Client core: edited and unsent messages")
struct ClientRevisionTests {
    static func preview(_ state: JSONValue, _ conversation: String = "c1") -> JSONValue? {
        guard case .array(let rows)? = state["conversations"] else { return nil }
        return rows.first { $0["id"] == .string(conversation) }?["lastPreview"]
    }

    @Test("M1: an edit updates the list preview and the visible toast in place, prints message.edited, changes no count")
    func editInList() {
        var h = CoreHarness()
        h.connect()
        h.event({ $0.seq = 6; $0.message = CoreHarness.message("m1", text: "see you at 5", at: 10) }, .message)
        #expect(h.events("toast.shown").count == 1)
        var edited = CoreHarness.message("m1", text: "see you at 6", at: 10)
        edited.edited = true
        h.event({ $0.seq = 7; $0.message = edited }, .messageEdited)
        let printed = h.events("message.edited")
        #expect(printed.count == 1)
        #expect(printed.first?["text"] == "see you at 6")
        #expect(printed.first?["seq"] == .number(7))
        #expect(h.events("toast.updated").count == 1)
        #expect(h.events("toast.shown").count == 1, "M1: no new alert")
        let state = h.state()
        #expect(Self.preview(state) == "see you at 6")
        #expect(state["toast"]?["text"] == "see you at 6")
        #expect(state["badge"] == .number(1), "M1: unread state unchanged")
    }

    @Test("M1: an edit older than the one shown (a replay after fresher words) changes nothing and prints nothing; the same edit again is harmless")
    func olderEditIgnored() {
        var h = CoreHarness()
        h.connect()
        h.event({ $0.seq = 6; $0.message = CoreHarness.message("m1", text: "v0", at: 10) }, .message)
        func edit(_ text: String, _ count: Int, seq: Int64) {
            var edited = CoreHarness.message("m1", text: text, at: 10)
            edited.edited = true
            edited.editCount = count
            h.event({ $0.seq = seq; $0.message = edited }, .messageEdited)
        }
        edit("v2", 2, seq: 7)
        edit("v1", 1, seq: 8)
        #expect(h.events("message.edited").map { $0["text"] } == ["v2"], "the older edit printed nothing")
        var state = h.state()
        #expect(Self.preview(state) == "v2")
        #expect(state["toast"]?["text"] == "v2")
        edit("v2", 2, seq: 9)
        state = h.state()
        #expect(Self.preview(state) == "v2" && state["toast"]?["text"] == "v2")
    }

    @Test("M1, M2: a toast folding two messages: the older one's edit shows once the newer one is unsent, and the toast stays for it")
    func foldedToast() {
        var h = CoreHarness()
        h.connect()
        h.event({ $0.seq = 6; $0.message = CoreHarness.message("m1", text: "first", at: 10) }, .message)
        h.event({ $0.seq = 7; $0.message = CoreHarness.message("m2", text: "second", at: 11) }, .message)
        #expect(h.state()["toast"]?["count"] == .number(2))
        var edited = CoreHarness.message("m1", text: "first, fixed", at: 10)
        edited.edited = true
        edited.editCount = 1
        h.event({ $0.seq = 8; $0.message = edited }, .messageEdited)
        #expect(h.state()["toast"]?["text"] == "second", "the toast shows m2: nothing visible changes")
        var placeholder = CoreHarness.message("m2", at: 11)
        placeholder.text = nil
        placeholder.unsent = true
        h.event({ $0.seq = 9; $0.message = placeholder; $0.lastMessage = edited; $0.unread = ["c1": 1]; $0.badge = 1 }, .messageUnsent)
        let state = h.state()
        #expect(state["toast"]?["text"] == "first, fixed")
        #expect(state["toast"]?["count"] == .number(1))
        #expect(h.events("toast.dismissed").isEmpty, "M2: the toast stays for m1")
    }

    @Test("M2, U7, P5: an unsend of an unread message takes the counts it carries, withdraws its toast and push, restores the preview")
    func unsendInBackground() {
        var h = CoreHarness()
        h.connect()
        h.event({ $0.seq = 6; $0.message = CoreHarness.message("m1", text: "earlier", at: 10) }, .message)
        h.command("background")
        h.event({ $0.seq = 7; $0.message = CoreHarness.message("m2", text: "oops", at: 11) }, .message)
        h.event({
            $0.push = PushInfo(conversation: "c1", message: "m2", sender: "bob", preview: "oops", title: "Bob", url: "herald://conversation/c1")
            $0.badge = 2
        }, .push)
        #expect(h.state()["badge"] == .number(2))
        var placeholder = CoreHarness.message("m2", text: "oops", at: 11)
        placeholder.text = nil
        placeholder.unsent = true
        h.event({
            $0.seq = 8
            $0.message = placeholder
            $0.lastMessage = CoreHarness.message("m1", text: "earlier", at: 10)
            $0.unread = ["c1": 1]
            $0.badge = 1
        }, .messageUnsent)
        let printed = h.events("message.unsent")
        #expect(printed.first?["unread"] == .number(1))
        #expect(printed.first?["badge"] == .number(1))
        #expect(h.events("push.cleared").count == 1)
        let state = h.state()
        #expect(state["badge"] == .number(1))
        #expect(state["pushes"] == .array([]))
        #expect(Self.preview(state) == "earlier")
    }

    @Test("M2: an older unsend's counts do not undo a newer read (U7)")
    func staleUnsendCounts() {
        var h = CoreHarness()
        h.connect()
        h.event({ $0.seq = 6; $0.message = CoreHarness.message("m1", at: 10) }, .message)
        h.event({ $0.seq = 9; $0.conversationId = "c1"; $0.messages = ["m1"]; $0.unread = ["c1": 0]; $0.badge = 0 }, .read)
        var placeholder = CoreHarness.message("m1", at: 10)
        placeholder.unsent = true
        h.event({ $0.seq = 8; $0.message = placeholder; $0.unread = ["c1": 1]; $0.badge = 1 }, .messageUnsent)
        #expect(h.state()["badge"] == .number(0))
    }

    @Test("M1, M2: script commands edit and unsend send message.edit and message.unsend and answer with the message")
    func commands() {
        var h = CoreHarness()
        h.connect()
        h.requests = []
        h.command("edit m3 better words")
        #expect(h.requests.last?.request == .editMessage(message: "m3", text: "better words"))
        var edited = CoreHarness.message("m3", from: CoreHarness.alice, text: "better words", at: 3)
        edited.edited = true
        h.respond { $0.message = edited }
        #expect(h.lastAnswer?["type"] == "ok")
        #expect(h.lastAnswer?["message"] == "m3")
        h.command("unsend m3")
        #expect(h.requests.last?.request == .unsendMessage(message: "m3"))
        h.respond { $0.ok = false; $0.error = ErrorInfo(.tooLate, "a message can be unsent only within 120 seconds of sending it") }
        #expect(h.lastAnswer?["code"] == "too_late")
        #expect(ScriptCommandParser.parse("edit m3") != .success(.edit(message: "m3", text: "")))
        #expect(ScriptCommandParser.parse("unsend m3 now") != .success(.unsend(message: "m3")))
    }

    @Test("M1, M2: /edit and /unsend change this user's newest message in the thread; without one they say so")
    func chatCommands() {
        let thread = ChatContext(
            me: "alice", scene: .thread("c2"), conversations: [("c2", "Bob")], users: ["alice", "bob"], newestFromOthers: "m9", newestMine: "m8")
        #expect(ChatInput.interpret("/edit see you at 6", in: thread) == .commands([.edit(message: "m8", text: "see you at 6")]))
        #expect(ChatInput.interpret("/unsend", in: thread) == .commands([.unsend(message: "m8")]))
        // The new text goes into the typed command as typed: an odd quote or a backslash is text, not command syntax.
        #expect(ChatInput.interpret(#"/edit she said "hi \ /x"#, in: thread) == .commands([.edit(message: "m8", text: #"she said "hi \ /x"#)]))
        let none = ChatContext(me: "alice", scene: .thread("c2"), conversations: [("c2", "Bob")], users: [], newestFromOthers: "m9")
        for line in ["/edit new", "/unsend", "/edit"] {
            guard case .notice = ChatInput.interpret(line, in: none) else {
                Issue.record("\(line) ran something")
                continue
            }
        }
    }

    @Test("M1, M2: the thread screen shows '(edited)' after an edited text and 'Bob unsent a message' / 'You unsent a message'")
    func threadScreen() {
        var h = CoreHarness()
        h.connect()
        h.command("open thread c1")
        var edited = CoreHarness.message("m1", text: "see you at 6", at: 1)
        edited.edited = true
        var theirs = CoreHarness.message("m2", at: 2)
        theirs.text = nil
        theirs.unsent = true
        var mine = CoreHarness.message("m3", from: CoreHarness.alice, at: 3)
        mine.text = nil
        mine.unsent = true
        h.respond {
            $0.messages = [mine, theirs, edited]
            $0.hasMore = false
        }
        let lines = ThreadPresenter(conversation: "c1").body(h.core.screenModel(now: h.now), width: 60, height: 10).map(TerminalStyle.plain)
        #expect(lines.contains { $0.hasSuffix("Bob: see you at 6 (edited)") }, "\(lines)")
        #expect(lines.contains { $0.hasSuffix(" Bob unsent a message") && !$0.contains("Bob: ") }, "\(lines)")
        #expect(lines.contains { $0.hasSuffix(" You unsent a message") }, "\(lines)")
        #expect(h.core.newestMineInThread == nil, "an unsent message is no target of /edit")
    }
}
