import HeraldProtocol
import HeraldRules
import Testing
@testable import HeraldClient

/// Colour with meaning on the terminal, as pure functions: nick colours, the style marks and how they are painted,
/// what a message looks like, when the bell rings.
@Suite("herald terminal colour: nick colours, style marks, message looks, the bell")
struct TerminalColourTests {
    @Test("A nick's colour is FNV-1a of the user id (the same on every run and device), in the palette, and spreads over it")
    func nickColourIsStable() {
        // FNV-1a 64 of "a" is 0xaf63dc4c8601ec8c (the published test vector): the hash is the standard one, not a
        // per-process seeded hashValue.
        #expect(NickColour.index(of: "a", paletteSize: Int.max) == Int(UInt64(0xaf63_dc4c_8601_ec8c) % UInt64(Int.max)))
        #expect(NickColour.index(of: "bob") == NickColour.index(of: "bob"))
        let ids = (0..<64).map { "user\($0)" }
        let used = Set(ids.map { NickColour.index(of: $0) })
        #expect(used.allSatisfy { TerminalStyle.nickPalette.indices.contains($0) })
        #expect(used.count >= 6, "64 ids use most of the 8 colours: \(used.sorted())")
    }

    @Test("Style marks take no column, and a peer's text loses any it holds: only our marks are painted")
    func marksAreOursOnly() {
        let mark = TerminalStyle.Mark.mention.text
        #expect(DisplayWidth.of(mark + "ab" + TerminalStyle.Mark.plain.text) == 2)
        let hostile = "hi" + mark + "there"
        #expect(TerminalStyle.unmarked(hostile) == "hi\u{FFFD}there")
        // A message line made drawable for the screen carries no mark of the sender's.
        let line = ScreenModel.ThreadLine(id: "m1", sender: "bob", senderName: "B" + mark + "ob", text: hostile).drawable
        #expect(!line.text.unicodeScalars.contains(where: TerminalStyle.isMark) && !line.senderName.unicodeScalars.contains(where: TerminalStyle.isMark))
        #expect(TerminalStyle.paint(TerminalStyle.unmarked(hostile), colour: true) == "hi\u{FFFD}there", "nothing painted")
    }

    @Test("Painting: colour as SGR and a reset at the row's end; NO_COLOR keeps bold and reverse, drops every colour")
    func paintingWithAndWithoutColour() {
        let row = "12:00 " + TerminalStyle.styled("Bob", .nick(1)) + ": " + TerminalStyle.styled("@alice hi", .mention)
        let coloured = TerminalStyle.paint(row, colour: true)
        #expect(coloured.contains("\u{1B}[34mBob") && coloured.contains("\u{1B}[1;33m@alice hi") && coloured.hasSuffix("\u{1B}[0m"))
        let plain = TerminalStyle.paint(row, colour: false)
        #expect(plain.contains("\u{1B}[1m@alice hi"), "a mention stays bold: \(plain.debugDescription)")
        #expect(!plain.contains("[3") && !plain.contains("[9") && !plain.contains(";3"), "no colour: \(plain.debugDescription)")
        #expect(TerminalStyle.plain(row) == "12:00 Bob: @alice hi")
        let selected = TerminalStyle.paint(String(Character(TerminalStyle.selectedRow)) + row, colour: true)
        #expect(selected.hasPrefix("\u{1B}[7m") && selected.contains("\u{1B}[0m\u{1B}[7m\u{1B}[34mBob"), "reverse kept under every style")
    }

    @Test("A message's look: my name bold, others' in their nick colour, a mention of me (N2) highlighted, the selected one reversed; the text unchanged")
    func messageLook() {
        let fromBob = ScreenModel.ThreadLine(id: "m1", sender: "bob", senderName: "Bob", text: "@alice lunch?")
        let look = MessageLook(fromBob, me: "alice", selected: false)
        let row = look.firstRow(time: "12:00", text: "@alice lunch?")
        #expect(TerminalStyle.plain(row) == "12:00 Bob: @alice lunch?")
        #expect(row.contains(NickColour.mark(of: "bob").text + "Bob") && row.contains(TerminalStyle.Mark.mention.text + "@alice lunch?"))
        #expect(!MessageLook(fromBob, me: "carol", selected: false).mentionsMe, "a mention of someone else is plain")
        let emailOnly = ScreenModel.ThreadLine(id: "m2", sender: "bob", senderName: "Bob", text: "mail bob@alice.org")
        #expect(!MessageLook(emailOnly, me: "alice", selected: false).mentionsMe, "an @ inside a word is no mention")
        let mine = ScreenModel.ThreadLine(id: "m3", sender: "alice", senderName: "Alice", text: "ok", isMine: true)
        let mineRow = MessageLook(mine, me: "alice", selected: true).firstRow(time: "12:01", text: "ok")
        #expect(mineRow.unicodeScalars.first == TerminalStyle.selectedRow && mineRow.contains(TerminalStyle.Mark.mine.text + "You"))
    }

    @Test("A toast's kind has its colour: error red, warning yellow, success green, info cyan")
    func toastColours() {
        #expect(ToastLook.mark(of: .error) == .bad && ToastLook.mark(of: .warning) == .warning)
        #expect(ToastLook.mark(of: .success) == .good && ToastLook.mark(of: .info) == .info)
    }

    @Test("The bell: a DM or a mention out of sight rings; in sight, from me, in quiet hours (N3) or off, never; muted rings only for a mention (N2)")
    func bellRules() {
        func arrival(direct: Bool = true, mention: Bool = false, muted: Bool = false, fromMe: Bool = false) -> AttentionBell.Arrival {
            AttentionBell.Arrival(conversation: "c1", fromMe: fromMe, direct: direct, mentionsMe: mention, muted: muted)
        }
        #expect(AttentionBell.rings(arrival(), enabled: true, looking: nil, quiet: false))
        #expect(AttentionBell.rings(arrival(), enabled: true, looking: "c2", quiet: false))
        #expect(!AttentionBell.rings(arrival(), enabled: false, looking: nil, quiet: false))
        #expect(!AttentionBell.rings(arrival(), enabled: true, looking: "c1", quiet: false))
        #expect(!AttentionBell.rings(arrival(fromMe: true), enabled: true, looking: nil, quiet: false))
        #expect(!AttentionBell.rings(arrival(), enabled: true, looking: nil, quiet: true))
        #expect(!AttentionBell.rings(arrival(direct: false), enabled: true, looking: nil, quiet: false), "a group message without a mention")
        #expect(AttentionBell.rings(arrival(direct: false, mention: true), enabled: true, looking: nil, quiet: false))
        #expect(!AttentionBell.rings(arrival(muted: true), enabled: true, looking: nil, quiet: false))
        #expect(AttentionBell.rings(arrival(direct: false, mention: true, muted: true), enabled: true, looking: nil, quiet: false))
    }
}
