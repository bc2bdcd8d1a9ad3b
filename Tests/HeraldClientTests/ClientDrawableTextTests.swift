import HeraldClient
import HeraldProtocol
import HeraldRules
import Testing

/// What others wrote reaches the terminal's rows as drawable text (TerminalText): a peer's message, name or group
/// title cannot carry an escape sequence, a CR or a BS onto the screen, and rows are measured on what is drawn.
@Suite("Client screen: others' text is drawn, never obeyed, and measured as drawn")
struct ClientDrawableTextTests {
    /// The screen-injection sequences: OSC 0 window title, tmux rename, OSC 52 clipboard, clear screen, SGR colours,
    /// CR/BS overwrite, C1 CSI, a right-to-left override.
    static let attacks = [
        "\u{1B}]0;owned\u{07}", "\u{1B}kowned\u{1B}\\", "\u{1B}]52;c;Y3VybCBldmlsIHwgc2g=\u{07}", "\u{1B}[2J", "\u{1B}[31mred\u{1B}[0m",
        "evil\r\u{08}\u{08}ok", "\u{9B}2J", "invoice\u{202E}fdp.exe",
    ]

    /// `row` without the selected row's reverse video, which is the presenter's own.
    private func unhighlighted(_ row: String) -> String {
        row.hasPrefix("\u{1B}[7m") && row.hasSuffix("\u{1B}[0m") ? String(row.dropFirst(4).dropLast(4)) : row
    }

    /// Scalars no row may hold: C0 (LF included: rows are written by the front end), DEL, C1, bidirectional controls.
    private func hostile(_ row: String) -> [String] {
        unhighlighted(row).unicodeScalars.filter { TerminalText.isControl($0) || TerminalText.isBidiControl($0) }.map { String($0.value, radix: 16) }
    }

    /// The hostile messages: the attacks in turn in c1 (the DM) and c2 (the group).
    private static let mallory = ParticipantInfo(id: "bob", name: "Bob\u{1B}[2J\r")
    private static let messages = attacks.enumerated().map { index, attack in
        CoreHarness.message("m\(index + 1)", in: index % 2 == 0 ? "c1" : "c2", from: mallory, text: attack, at: Int64(10 + index))
    }

    /// Alice, with a DM from a bob whose name is hostile and a group whose title is, each with hostile messages.
    private func world() -> CoreHarness {
        var h = CoreHarness()
        h.core.connectionOpened(now: h.now)
        h.collect()
        h.respond {
            $0.mode = .snapshot
            $0.latest = 5
            $0.conversations = [
                ConversationInfo(id: "c1", kind: .direct, title: nil, participants: [CoreHarness.alice, Self.mallory], unread: 0, lastMessage: nil, lastActivity: 1),
                ConversationInfo(id: "c2", kind: .group, title: "Team\u{1B}]0;owned\u{07}\u{202E}", participants: [CoreHarness.alice, Self.mallory], unread: 0,
                                 lastMessage: nil, lastActivity: 2),
            ]
            $0.unread = [:]
            $0.badge = 0
            $0.notifications = []
            $0.bellUnread = 0
        }
        for message in Self.messages { h.event({ $0.message = message }, .message) }
        return h
    }

    @Test("List, toast and thread rows hold no control, DEL, C1 or bidirectional control from a message, a name or a group title")
    func rowsHoldNoControls() {
        var h = world()
        h.core.setScreen(ScreenGeometry(width: 80, rows: 30))
        let model = h.core.screenModel(now: h.now)
        let list = ScenePresenters.presenter(for: .list)
        var rows = (list.body(model, width: 80, height: 20) + list.toastOverlay(model, width: 80)).map(TerminalStyle.plain)
        #expect(model.conversations.contains { $0.title == "Team␛]0;owned␇" }, "the title shown, not obeyed: \(model.conversations.map(\.title))")
        for id in ["c1", "c2"] {
            h.command("open thread \(id)")
            h.respond {
                $0.messages = Self.messages.filter { $0.conversation == id }.reversed()
                $0.hasMore = false
            }
            rows += ScenePresenters.presenter(for: .thread(id)).body(h.core.screenModel(now: h.now), width: 80, height: 30).map(TerminalStyle.plain)
        }
        #expect(rows.contains { $0.contains("Bob␛[2J␍: ␛]0;owned␇") }, "sender and text shown as pictures:\n\(rows.joined(separator: "\n"))")
        #expect(rows.contains { $0.contains("Bob␛[2J␍: evil␍␈␈ok") }, "CR and BS shown, so nothing is overwritten")
        #expect(rows.contains { $0.contains("invoicefdp.exe") }, "the override dropped: the name reads as written")
        for row in rows {
            #expect(hostile(row).isEmpty, "\(row.debugDescription)")
            #expect(DisplayWidth.of(unhighlighted(row)) <= 80)
        }
    }

    @Test("Rows are measured on what is drawn: 100 ESCs take 100 columns (two rows at 80), and the viewport counts those rows (U2)")
    func widthOfWhatIsDrawn() {
        var h = CoreHarness()
        h.connect()
        h.core.setScreen(ScreenGeometry(width: 80, rows: 10))
        h.command("open thread c1")
        h.respond {
            $0.messages = [CoreHarness.message("m2", text: String(repeating: "\u{1B}", count: 100), at: 2), CoreHarness.message("m1", text: "first", at: 1)]
            $0.hasMore = false
        }
        let model = h.core.screenModel(now: h.now)
        let escapes = model.thread.first { $0.id == "m2" }
        #expect(escapes.map { ThreadLayout.rows($0, width: 80) } == 2)
        let rows = ScenePresenters.presenter(for: .thread("c1")).body(model, width: 80, height: 10)
        #expect(rows.filter { $0.contains("␛") }.count == 2, "\(rows)")
        #expect(rows.allSatisfy { DisplayWidth.of($0) <= 80 })
    }

    @Test("A line break in a message is a row inside the message's own cells; CR LF is one break and a lone CR only shows")
    func lineBreaksStayInTheMessage() {
        var h = CoreHarness()
        h.connect()
        h.core.setScreen(ScreenGeometry(width: 80, rows: 10))
        h.command("open thread c1")
        h.respond {
            $0.messages = [CoreHarness.message("m1", text: "first\r\nsecond\rthird", at: 1)]
            $0.hasMore = false
        }
        let rows = ScenePresenters.presenter(for: .thread("c1")).body(h.core.screenModel(now: h.now), width: 80, height: 10).map(TerminalStyle.plain)
        #expect(rows.contains { $0.hasSuffix("Bob: first") }, "\(rows)")
        #expect(rows.contains { $0 == String(repeating: " ", count: ThreadLayout.indent) + "second␍third" }, "indented under the text: \(rows)")
    }
}
