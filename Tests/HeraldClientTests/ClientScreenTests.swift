import HeraldClient
import HeraldProtocol
import HeraldRules
import Testing

/// The core behind the terminal: the viewport sized in rows, what the thread screen shows, and the script fields that
/// came with it (history with text, clientMessageId).
@Suite("Client core: the thread screen and its script fields")
struct ClientScreenTests {
    /// Connected alice with c1 (bob) open and `count` messages from bob loaded; `text(n)` is message n's text.
    private func openThread(count: Int, unread: Int = 0, screen: ScreenGeometry?, text: (Int) -> String = { "line \($0)" }) -> CoreHarness {
        var h = CoreHarness()
        h.connect(unread: unread)
        if let screen { h.core.setScreen(screen) }
        h.requests = []
        h.command("open thread c1")
        h.respond {
            $0.messages = (1...count).reversed().map { CoreHarness.message("m\($0)", text: text($0), at: Int64($0)) }
            $0.hasMore = false
        }
        return h
    }

    private func acked(_ h: CoreHarness) -> [String] {
        h.requests.flatMap { frame -> [String] in
            if case .ack(let ids) = frame.request { return ids }
            return []
        }
    }

    @Test("U2/U3: on a screen the viewport holds the rows it has (one kept for 'new messages'), and only those are read")
    func rowsDecideWhatIsRead() {
        let h = openThread(count: 20, screen: ScreenGeometry(width: 80, rows: 6))
        #expect(acked(h) == ["m16", "m17", "m18", "m19", "m20"])
        #expect(h.core.screenModel(now: h.now).thread.map(\.id) == ["m16", "m17", "m18", "m19", "m20"])
    }

    @Test("U2: a message that wraps over three rows leaves room for fewer; it is shown whole")
    func longMessageTakesRows() {
        let long = String(repeating: "word ", count: 30)
        let h = openThread(count: 10, screen: ScreenGeometry(width: 60, rows: 6), text: { $0 == 10 ? long : "line \($0)" })
        #expect(acked(h) == ["m8", "m9", "m10"], "m10 takes 3 rows: 5 rows hold m8, m9 and m10")
        let line = h.core.screenModel(now: h.now).thread.last
        #expect(line?.text == long, "the whole text, not a preview")
    }

    @Test("U2: a taller screen reads what it brings into view; a shorter one reads nothing")
    func resizeReads() {
        var h = openThread(count: 20, screen: ScreenGeometry(width: 80, rows: 4))
        #expect(acked(h) == ["m18", "m19", "m20"])
        h.requests = []
        h.core.setScreen(ScreenGeometry(width: 80, rows: 3))
        h.collect()
        #expect(acked(h).isEmpty)
        h.core.setScreen(ScreenGeometry(width: 80, rows: 8))
        h.collect()
        #expect(acked(h) == ["m14", "m15", "m16", "m17"])
    }

    @Test("Script mode keeps --viewport messages: without a screen one message is one row whatever its length")
    func scriptModeUnchanged() {
        let h = openThread(count: 20, screen: nil, text: { _ in String(repeating: "long ", count: 100) })
        #expect(acked(h).count == ThreadViewport.defaultSize)
    }

    @Test("Readable thread: the unread divider sits above the first message that was unread when the thread opened")
    func unreadDivider() {
        let h = openThread(count: 6, unread: 2, screen: ScreenGeometry(width: 80, rows: 20))
        let lines = h.core.screenModel(now: h.now).thread
        #expect(lines.filter(\.unreadDividerAbove).map(\.id) == ["m5"])
    }

    @Test("U6 on screen: a receipt puts 'Seen' under my newest message it covers; a pending send is listed until acknowledged")
    func seenAndPending() {
        var h = openThread(count: 2, screen: ScreenGeometry(width: 80, rows: 20))
        h.requests = []
        h.command("send c1 my reply")
        #expect(h.core.screenModel(now: h.now).pending.map(\.text) == ["my reply"])
        guard case .send(_, let clientMessageId, _, _, _)? = h.requests.last?.request else { Issue.record("no send"); return }
        var mine = CoreHarness.message("m3", from: CoreHarness.alice, text: "my reply", at: 3)
        mine.clientMessageId = clientMessageId
        h.respond { $0.message = mine }
        #expect(h.core.screenModel(now: h.now).pending.isEmpty)
        #expect(h.lastAnswer?["clientMessageId"] == .string(clientMessageId), "the send's answer names its clientMessageId")
        #expect(h.events("message").last?["clientMessageId"] == .string(clientMessageId), "so does the message event of my own send")
        #expect(h.core.screenModel(now: h.now).thread.last?.isMine == true)
        h.event({ $0.seq = 9; $0.conversationId = "c1"; $0.messageId = "m3"; $0.reader = "bob"; $0.at = 4 }, .receipt)
        #expect(h.core.screenModel(now: h.now).thread.last?.seenBy == "Seen")
    }

    @Test("client-script: a loaded history page prints one `history` event with every message's text, oldest first")
    func historyEvent() {
        let h = openThread(count: 3, screen: nil)
        let history = h.events("history").last
        #expect(history?["conversation"] == "c1")
        guard case .array(let messages)? = history?["messages"] else { Issue.record("no messages"); return }
        #expect(messages.map { $0["message"] } == ["m1", "m2", "m3"])
        #expect(messages.map { $0["text"] } == ["line 1", "line 2", "line 3"])
        #expect(h.events("message").isEmpty, "still no message events for history")
    }

    @Test("dm with yourself is refused with bad_arguments and sends nothing")
    func dmYourself() {
        var h = CoreHarness()
        h.connect()
        h.requests = []
        h.command("dm alice")
        #expect(h.lastAnswer?["code"] == "bad_arguments")
        #expect(h.requests.isEmpty)
    }
}
