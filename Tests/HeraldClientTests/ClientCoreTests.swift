import HeraldClient
import HeraldProtocol
import HeraldRules
import Testing

/// The client core without sockets: server frames and commands in, lines and requests out.
struct CoreHarness {
    var core = ClientCore(configuration: ClientConfiguration(user: "alice", deviceTag: "d1"))
    var now = Instant(milliseconds: 1_000)
    var lines: [JSONValue] = []
    var requests: [RequestFrame] = []

    mutating func collect() {
        for output in core.drainOutputs() {
            switch output {
            // Script mode's lines, so these tests also hold the typed outputs to the script contract.
            case .answer(let answer): lines.append(ScriptOutput.line(answer))
            case .event(let event): lines.append(ScriptOutput.line(event, me: core.configuration.user))
            case .send(let frame): requests.append(frame)
            case .log, .stored: break
            }
        }
    }

    mutating func command(_ text: String) {
        guard case .success(let command)? = ScriptCommandParser.parse(text) else { Issue.record("bad command \(text)"); return }
        core.begin(command, now: now)
        collect()
    }

    mutating func respond(_ build: (inout ResponseFrame) -> Void) {
        guard let request = requests.last else { Issue.record("no request to answer"); return }
        var response = ResponseFrame(id: request.id)
        build(&response)
        core.receive(.response(response), now: now)
        collect()
    }

    mutating func event(_ build: (inout EventFrame) -> Void, _ name: EventName) {
        var frame = EventFrame(event: name)
        build(&frame)
        core.receive(.event(frame), now: now)
        collect()
    }

    mutating func advance(_ ms: Int64) {
        now = now + Milliseconds(ms)
        core.tick(now: now)
        collect()
    }

    func events(_ name: String) -> [JSONValue] { lines.filter { $0["type"] == "event" && $0["event"] == .string(name) } }
    var lastAnswer: JSONValue? { lines.last { $0["type"] == "ok" || $0["type"] == "error" || $0["type"] == "state" } }

    mutating func state() -> JSONValue {
        command("state")
        return lines.last ?? .null
    }

    static let bob = ParticipantInfo(id: "bob", name: "Bob")
    static let alice = ParticipantInfo(id: "alice", name: "Alice")

    static func message(_ id: String, in conversation: String = "c1", from sender: ParticipantInfo = bob, text: String = "hi", at time: Int64) -> MessageInfo {
        MessageInfo(id: id, conversation: conversation, sender: sender.id, senderName: sender.name, kind: .text, text: text, imageURL: nil,
                    clientMessageId: nil, createdAt: time)
    }

    /// Opens the connection and answers the sync with a snapshot of one conversation c1 with bob.
    mutating func connect(unread: Int = 0) {
        core.connectionOpened(now: now)
        collect()
        respond {
            $0.mode = .snapshot
            $0.latest = 5
            $0.conversations = [ConversationInfo(id: "c1", kind: .direct, title: nil, participants: [Self.alice, Self.bob], unread: unread,
                                                 lastMessage: nil, lastActivity: 1)]
            $0.unread = ["c1": unread]
            $0.badge = unread
            $0.notifications = []
            $0.bellUnread = 0
        }
    }
}

@Suite("Client core (sans-IO glue around HeraldRules)")
struct ClientCoreTests {
    @Test("R1a: connected is printed only after the sync response; the first sync asks for a snapshot")
    func connectedAfterSync() {
        var h = CoreHarness()
        h.core.connectionOpened(now: h.now)
        h.collect()
        #expect(h.requests.first?.request == .sync(after: nil))
        #expect(h.events("connected").isEmpty)
        h.connect()
        #expect(h.events("connected").count == 1)
        #expect(h.state()["connected"] == true)
    }

    @Test("R3: a reconnect resumes after the last seq seen and prints disconnected then connected")
    func resumeAfterLastSeq() {
        var h = CoreHarness()
        h.connect()
        h.event({ $0.seq = 9; $0.message = CoreHarness.message("m1", at: 10) }, .message)
        h.core.connectionLost(now: h.now, reason: "test")
        h.collect()
        #expect(h.events("disconnected").count == 1)
        #expect(h.state()["connected"] == false)
        h.requests = []
        h.core.connectionOpened(now: h.now)
        h.collect()
        #expect(h.requests.first?.request == .sync(after: 9))
    }

    @Test("S4, T10: in the list a message from another user prints once, raises unread and an info toast")
    func listArrival() {
        var h = CoreHarness()
        h.connect()
        let m = CoreHarness.message("m1", text: String(repeating: "x", count: 60), at: 10)
        h.event({ $0.seq = 6; $0.message = m }, .message)
        h.event({ $0.seq = 6; $0.message = m }, .message)
        #expect(h.events("message").count == 1, "never twice for one message")
        let shown = h.events("toast.shown")
        #expect(shown.count == 1)
        #expect(shown.first?["title"] == "Bob")
        #expect(shown.first?["text"] == .string(String(repeating: "x", count: 50) + "..."))
        #expect(h.events("haptic").first?["name"] == "light impact")
        let state = h.state()
        #expect(state["unread"]?["c1"] == 1)
        #expect(state["badgeText"] == "1")
        #expect(state["toast"]?["url"] == "herald://conversation/c1")
    }

    @Test("S1: --viewport Int.max opens a thread with the largest page (200) instead of overflowing viewport * 2")
    func hugeViewportAsksForTheLargestPage() {
        var h = CoreHarness()
        h.core = ClientCore(configuration: ClientConfiguration(user: "alice", viewportSize: .max, deviceTag: "d1"))
        h.connect()
        h.requests = []
        h.command("open thread c1")
        guard case .history("c1", nil, let limit)? = h.requests.last?.request else {
            Issue.record("no history request: \(h.requests)")
            return
        }
        #expect(limit == 200)
    }

    @Test("S1, S2, U2: opening the thread loads the newest page and acks exactly the visible ids; arrivals at bottom are acked")
    func threadVisibility() {
        var h = CoreHarness()
        h.connect(unread: 3)
        h.requests = []
        h.command("open thread c1")
        guard case .history(let conversation, nil, _)? = h.requests.last?.request else {
            Issue.record("no history request: \(h.requests)")
            return
        }
        #expect(conversation == "c1")
        h.respond {
            $0.messages = (1...3).reversed().map { CoreHarness.message("m\($0)", at: Int64($0)) }
            $0.hasMore = false
        }
        #expect(h.requests.last?.request == .ack(messages: ["m1", "m2", "m3"]))
        #expect(h.events("message").isEmpty, "history prints no message events")
        h.respond {
            $0.read = ["m1", "m2", "m3"]
            $0.unread = ["c1": 0]
            $0.badge = 0
            $0.latest = 7
        }
        #expect(h.lastAnswer?["type"] == "ok")
        h.event({ $0.seq = 8; $0.message = CoreHarness.message("m4", at: 4) }, .message)
        #expect(h.requests.last?.request == .ack(messages: ["m4"]))
        #expect(h.events("toast.shown").isEmpty, "S1: no toast for the viewed conversation")
        let state = h.state()
        #expect(state["viewport"]?["visible"] == ["m1", "m2", "m3", "m4"])
        #expect(state["anchor"] == "messages.thread(c1)")
    }

    @Test("S6, T7: in the background no toast; foreground returns to the scene that was left")
    func background() {
        var h = CoreHarness()
        h.connect()
        h.command("open tab settings")
        h.respond { _ in }  // the server took the scene report
        h.command("background")
        h.respond { _ in }
        #expect(h.state()["scene"] == "background")
        h.event({ $0.seq = 6; $0.message = CoreHarness.message("m1", at: 10) }, .message)
        #expect(h.events("toast.shown").isEmpty)
        h.command("foreground")
        h.respond { _ in }
        let state = h.state()
        #expect(state["scene"] == "tab")
        #expect(state["tab"] == "settings")
        #expect(state["foreground"] == true)
    }

    @Test("P1, P3: background is answered only once the server has taken the scene report, so later sends see it")
    func sceneAnswerWaitsForTheReport() {
        var h = CoreHarness()
        h.connect()
        let answersBefore = h.lines.filter { $0["type"] == "ok" }.count
        h.command("background")
        #expect(h.lines.filter { $0["type"] == "ok" }.count == answersBefore, "answered before the server took the report")
        guard case .scene(let report)? = h.requests.last?.request else {
            Issue.record("no scene report sent")
            return
        }
        #expect(report.scene == .background)
        #expect(report.foreground == false)
        h.respond { _ in }
        #expect(h.lastAnswer?["type"] == "ok")
        #expect(h.lastAnswer?["cmd"] == "background")
    }

    @Test("D1: a malformed link answers invalid_link and changes nothing")
    func invalidLink() {
        var h = CoreHarness()
        h.connect()
        h.command("open notifications")
        h.command("open-url herald://nowhere")
        #expect(h.lastAnswer?["code"] == "invalid_link")
        #expect(h.state()["scene"] == "notifications")
    }

    @Test("D3: a link at cold start waits (pendingDeepLink) and completes when the conversation is known")
    func coldStartLink() {
        var h = CoreHarness()
        #expect(h.core.openAtStart("herald://conversation/c1", now: h.now) == nil)
        h.collect()
        #expect(h.state()["pendingDeepLink"] == "herald://conversation/c1")
        h.connect()
        #expect(h.events("route").first?["conversation"] == "c1")
        #expect(h.state()["scene"] == "thread")
    }

    @Test("T2, T9: toast tap dismisses then follows the link; an unanswered toast times out")
    func toastTapAndTimeout() {
        var h = CoreHarness()
        h.connect()
        h.command("toast show success normal Saved")
        #expect(h.events("toast.shown").count == 1)
        h.advance(3_000)
        #expect(h.events("toast.dismissed").first?["reason"] == "timeout")
        h.event({ $0.seq = 6; $0.message = CoreHarness.message("m1", at: 10) }, .message)
        h.command("toast tap")
        #expect(h.events("toast.dismissed").last?["reason"] == "tap")
        #expect(h.state()["scene"] == "thread")
    }

    @Test("B2: the bell event carries pulse when the count rises")
    func bellPulse() {
        var h = CoreHarness()
        h.connect()
        h.event({
            $0.seq = 6
            $0.action = .created
            $0.notification = NotificationInfo(id: "n1", kind: .follow, actor: "bob", text: "Bob followed you", url: nil, read: false, createdAt: 5)
            $0.bellUnread = 1
        }, .bell)
        #expect(h.events("bell").last?["pulse"] == true)
        #expect(h.state()["bell"]?["unread"] == 1)
    }

    @Test("R4: a send made while offline waits in the queue and goes out once, after the sync")
    func offlineSendQueue() {
        var h = CoreHarness()
        h.connect()
        h.core.connectionLost(now: h.now, reason: "test")
        h.collect()
        h.requests = []
        h.command("send c1 queued")
        #expect(h.requests.isEmpty)
        h.core.connectionOpened(now: h.now)
        h.collect()
        h.respond { $0.mode = .resume; $0.latest = 5 }
        let sends = h.requests.filter { if case .send = $0.request { return true } else { return false } }
        #expect(sends.count == 1)
        guard case .send(_, let clientMessageId, _, _, _)? = sends.first?.request else { return }
        #expect(clientMessageId == "alice-d1-1")
    }

    @Test("R1a, R4: a message typed while open thread waits for a server that went away is queued and shown waiting at once; the open is still answered after the reconnect")
    func typedSendBesideAWaitingOpen() throws {
        var h = CoreHarness()
        h.connect()
        h.command("open thread c1")
        #expect(h.core.isBusy, "open thread waits for its history page")
        h.core.connectionLost(now: h.now, reason: "test")
        h.collect()
        #expect(h.core.isBusy, "a read is retried after the reconnect, not failed")
        let answersBefore = h.lines.count
        let send = try #require(try ScriptCommandParser.parse("send c1 while away")?.get())
        let tookSend = h.core.sendBesideActiveCommand(send, now: h.now)
        #expect(tookSend)
        h.collect()
        #expect(h.lines.count == answersBefore, "nothing is answered for it")
        #expect(h.core.screenModel(now: h.now).pending.map(\.text) == ["while away"], "shown in the thread as waiting")
        let open = try #require(try ScriptCommandParser.parse("open list")?.get())
        let tookOpen = h.core.sendBesideActiveCommand(open, now: h.now)
        #expect(!tookOpen, "only a send goes beside")

        h.requests = []
        h.core.connectionOpened(now: h.now)
        h.collect()
        h.respond { $0.mode = .resume; $0.latest = 5 }
        let sends = h.requests.filter { if case .send = $0.request { return true } else { return false } }
        #expect(sends.count == 1)
        // The open's own page (a refresh of the thread follows it, answering nothing).
        let history = try #require(h.requests.first { if case .history = $0.request { return true } else { return false } })
        h.requests.append(history)
        h.respond { $0.messages = [] }
        #expect(h.lastAnswer?["type"] == "ok")
        #expect(h.lastAnswer?["cmd"] == "open")
        #expect(!h.core.isBusy)
    }

    @Test("R5: open thread of a conversation the local list does not have yet asks the server's list: opened if it is there, not_participant if not")
    func openThreadAsksTheServersList() {
        var h = CoreHarness()
        h.connect()
        h.requests = []
        h.command("open thread c2")
        #expect(h.requests.map(\.request) == [.conversations], "the list is read before deciding")
        #expect(h.lastAnswer == nil, "no answer until the server's list is in")
        h.respond {
            $0.latest = 6
            $0.conversations = [ConversationInfo(id: "c2", kind: .direct, title: nil, participants: [CoreHarness.alice, CoreHarness.bob],
                                                 unread: 0, lastMessage: nil, lastActivity: 2)]
        }
        guard case .history(let conversation, _, _)? = h.requests.last?.request else {
            Issue.record("no history request: \(h.requests)")
            return
        }
        #expect(conversation == "c2")
        h.respond { $0.messages = [] }
        #expect(h.lastAnswer?["type"] == "ok")
        #expect(h.state()["conversation"] == "c2")

        h.command("open thread c3")
        h.respond { $0.latest = 6; $0.conversations = [] }
        #expect(h.lastAnswer?["code"] == "not_participant")
        #expect(h.state()["conversation"] == "c2", "a refused open leaves the scene as it was")

        h.command("open thread c4")
        h.respond { $0.error = ErrorInfo(.rateLimited, "slow down") }
        #expect(h.lastAnswer?["code"] == "rate_limited", "a refused list is answered as refused, not as not_participant")
    }
}
