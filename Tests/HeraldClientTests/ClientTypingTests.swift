import HeraldClient
import HeraldProtocol
import HeraldRules
import Testing

@Suite("Client core: typing and presence (E1, E2)")
struct ClientTypingTests {
    /// The `users` of the last `typing` event printed.
    private func lastTypists(_ h: CoreHarness) -> JSONValue? { h.events("typing").last?["users"] }

    private func typingOf(_ state: JSONValue, _ conversation: String) -> JSONValue? {
        guard case .array(let rows)? = state["conversations"] else { return nil }
        return rows.first { $0["id"] == .string(conversation) }?["typing"]
    }

    @Test("E1: a typing event lists the typists; state shows them; 6 s of silence ends it on the device too")
    func typingEventsAndExpiry() {
        var h = CoreHarness()
        h.connect()
        h.event({ $0.conversationId = "c1"; $0.user = "bob"; $0.typing = true }, .typing)
        #expect(lastTypists(h) == .strings(["bob"]))
        #expect(typingOf(h.state(), "c1") == .strings(["bob"]))
        h.advance(5_999)
        #expect(h.events("typing").count == 1)
        h.advance(1)
        #expect(h.events("typing").count == 2)
        #expect(lastTypists(h) == .strings([]))
        #expect(typingOf(h.state(), "c1") == .strings([]))
    }

    @Test("E1: a message from the typist ends the indicator, after its message event")
    func messageEndsTyping() {
        var h = CoreHarness()
        h.connect()
        h.event({ $0.conversationId = "c1"; $0.user = "bob"; $0.typing = true }, .typing)
        h.event({ $0.seq = 6; $0.message = CoreHarness.message("m1", at: 10) }, .message)
        let names = h.lines.compactMap { line -> String? in
            guard case .string(let name)? = line["event"], name == "message" || name == "typing" else { return nil }
            return name
        }
        #expect(names == ["typing", "message", "typing"])
        #expect(lastTypists(h) == .strings([]))
    }

    @Test("E1: typing start/stop commands are answered after the server; a send after a start reports the stop first")
    func commandsAndStopOnSend() {
        var h = CoreHarness()
        h.connect()
        h.requests = []
        h.command("typing start c1")
        #expect(h.requests.last?.request == .typingStart(conversation: "c1"))
        #expect(h.lastAnswer?["type"] != .string("ok"), "waits for the server")
        h.respond { _ in }
        #expect(h.lastAnswer?["type"] == .string("ok") && h.lastAnswer?["cmd"] == .string("typing"))
        h.requests = []
        h.command("send c1 hello")
        #expect(h.requests.map(\.request.typeName) == ["typing.stop", "send"])
    }

    @Test("E1: offline, a typing report is refused not_connected instead of being queued")
    func offlineTypingRefused() {
        var h = CoreHarness()
        h.command("typing start c1")
        #expect(h.lastAnswer?["code"] == .string("not_connected"))
        #expect(h.requests.allSatisfy { $0.request.typeName != "typing.start" })
    }

    @Test("E1: the composer reports a start, refreshes after 3 s, stops after 5 s idle, and when the thread is left")
    func composer() {
        var h = CoreHarness()
        h.connect()
        h.command("open thread c1")
        h.respond { $0.messages = []; $0.hasMore = false }
        h.requests = []
        h.core.composerChanged(isEmpty: false, now: h.now); h.collect()
        h.advance(1_000)
        h.core.composerChanged(isEmpty: false, now: h.now); h.collect()
        #expect(h.requests.map(\.request) == [.typingStart(conversation: "c1")])
        h.advance(2_000)
        h.core.composerChanged(isEmpty: false, now: h.now); h.collect()
        #expect(h.requests.map(\.request) == [.typingStart(conversation: "c1"), .typingStart(conversation: "c1")])
        h.advance(5_000)
        #expect(h.requests.last?.request == .typingStop(conversation: "c1"))
        h.core.composerChanged(isEmpty: false, now: h.now); h.collect()
        h.requests = []
        h.command("open list")
        #expect(h.requests.first?.request == .typingStop(conversation: "c1"))
    }

    @Test("E2: a presence event is printed with status and lastSeen, and shows in the 1:1 thread's title")
    func presence() {
        var h = CoreHarness()
        h.connect()
        h.event({ $0.user = "bob"; $0.status = .offline; $0.lastSeen = 1_767_258_330_000 }, .presence)
        let printed = h.events("presence").last
        #expect(printed?["user"] == .string("bob") && printed?["status"] == .string("offline"))
        #expect(printed?["lastSeen"] == .int(1_767_258_330_000))
        h.command("open thread c1")
        h.respond { $0.messages = []; $0.hasMore = false }
        #expect(h.core.screenModel(now: h.now).threadPresence == PresenceState(status: .offline, lastSeen: 1_767_258_330_000))
        h.event({ $0.conversationId = "c1"; $0.user = "bob"; $0.typing = true }, .typing)
        #expect(h.core.screenModel(now: h.now).typingLine == "Bob is typing…")
        #expect(h.core.screenModel(now: h.now).conversations.first?.typing == true)
    }

    @Test("E1, E2: a lost connection ends every indicator (printed) and forgets presence until the next sync tells it")
    func connectionLostClears() {
        var h = CoreHarness()
        h.connect()
        h.event({ $0.user = "bob"; $0.status = .online }, .presence)
        h.event({ $0.conversationId = "c1"; $0.user = "bob"; $0.typing = true }, .typing)
        h.core.connectionLost(now: h.now, reason: "test")
        h.collect()
        #expect(lastTypists(h) == .strings([]))
        #expect(h.core.presence(of: "bob") == nil)
    }
}
