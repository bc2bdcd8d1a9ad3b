import HeraldRules
import PropertyBased
import Testing

/// Random scalars weighted towards what a terminal reads as instructions: C0, DEL, C1, bidirectional formatting and
/// line separators, mixed with printable ASCII, wide characters and anything else of Unicode.
private let scalars = zip(Gen.int(in: 0...5), Gen.int(in: 0...0x10FFFF)).map { kind, value -> Unicode.Scalar in
    let special: [UInt32] = [0x061C, 0x200E, 0x200F, 0x202A, 0x202B, 0x202C, 0x202D, 0x202E, 0x2066, 0x2067, 0x2068, 0x2069, 0x2028, 0x2029]
    let chosen: UInt32
    switch kind {
    case 0: chosen = UInt32(value % 0x20)  // C0, ESC included
    case 1: chosen = 0x7F + UInt32(value % 0x21)  // DEL and C1
    case 2: chosen = special[value % special.count]
    case 3: chosen = 0x20 + UInt32(value % 0x5F)  // printable ASCII
    default: chosen = UInt32(value)
    }
    return Unicode.Scalar(chosen) ?? "x"  // surrogates are not scalars
}.array(of: 0...60).map { String(String.UnicodeScalarView($0)) }

/// What no drawable text may hold: a byte below 0x20, DEL, a C1 control (UTF-8 C2 80-C2 9F), or a bidirectional
/// control or line separator.
private func forbidden(_ text: String, allowingLineFeed: Bool) -> [Unicode.Scalar] {
    text.unicodeScalars.filter { scalar in
        if allowingLineFeed && scalar == "\n" { return false }
        return scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) || TerminalText.isBidiControl(scalar)
            || scalar.value == 0x2028 || scalar.value == 0x2029
    }
}

@Suite("TerminalText: untrusted text is drawn, never obeyed")
struct TerminalTextTests {
    @Test("Property: one-row text never holds a control, DEL, C1 or bidirectional control byte, and is idempotent")
    func lineNeverHoldsControls() async {
        await propertyCheck(count: 500, input: scalars) { text in
            let drawn = TerminalText.line(text)
            #expect(forbidden(drawn, allowingLineFeed: false).isEmpty, "\(drawn.unicodeScalars.map { String($0.value, radix: 16) })")
            #expect(!drawn.utf8.contains { $0 < 0x20 || $0 == 0x7F }, "no C0 byte or DEL")
            #expect(TerminalText.line(drawn) == drawn, "drawable text stays as it is")
        }
    }

    @Test("Property: a message's text keeps only LF as a line break and nothing else a terminal obeys")
    func linesKeepOnlyLineFeed() async {
        await propertyCheck(count: 500, input: scalars) { text in
            let drawn = TerminalText.lines(text)
            #expect(forbidden(drawn, allowingLineFeed: true).isEmpty)
            #expect(TerminalText.lines(drawn) == drawn)
            // Each line break of the input is one row, never more, never fewer.
            let breaks = text.unicodeScalars.filter { $0 == "\n" || $0.value == 0x2028 || $0.value == 0x2029 }.count
            #expect(drawn.unicodeScalars.filter { $0 == "\n" }.count == breaks)
        }
    }

    @Test("Escape sequences of the screen-injection attacks are shown, not run")
    func attacksShown() {
        #expect(TerminalText.line("\u{1B}]0;owned\u{07}") == "␛]0;owned␇", "OSC 0 window title")
        #expect(TerminalText.line("\u{1B}kowned\u{1B}\\") == "␛kowned␛\\", "tmux window rename")
        #expect(TerminalText.line("\u{1B}]52;c;Y3VybA==\u{07}") == "␛]52;c;Y3VybA==␇", "OSC 52 clipboard")
        #expect(TerminalText.line("\u{1B}[2J\u{1B}[31mred") == "␛[2J␛[31mred", "clear screen and SGR")
        #expect(TerminalText.line("evil\r\u{08}\u{08}ok") == "evil␍␈␈ok", "CR and BS overwrite")
        #expect(TerminalText.line("\u{9B}2J\u{9D}0;x\u{9C}") == "\u{FFFD}2J\u{FFFD}0;x\u{FFFD}", "C1 CSI, OSC and ST")
        #expect(TerminalText.line("a\u{7F}b") == "a␡b")
        #expect(TerminalText.line("a\tb") == "a b", "a tab is one space")
    }

    @Test("Bidirectional overrides, isolates and marks are removed: the text reads in the order it was written")
    func bidiRemoved() {
        #expect(TerminalText.line("invoice\u{202E}fdp.exe") == "invoicefdp.exe")
        #expect(TerminalText.line("\u{2067}abc\u{2069}\u{200F}\u{200E}\u{061C}") == "abc")
        #expect(TerminalText.line("שלום") == "שלום", "right-to-left letters themselves stay")
    }

    @Test("Line breaks: kept as one LF in a message, shown as ␊ on one row")
    func lineBreaks() {
        #expect(TerminalText.lines("one\r\ntwo\nthree\u{2028}four") == "one\ntwo\nthree\nfour")
        #expect(TerminalText.lines("over\rwrite") == "over␍write", "a lone CR is not a line break")
        #expect(TerminalText.line("one\r\ntwo\nthree") == "one␍␊two␊three")
    }

    @Test("Text without controls is returned unchanged (emoji, wide and combining characters)")
    func plainUnchanged() {
        for text in ["hello", "👩‍👩‍👧 família 漢字", "e\u{301}", ""] {
            #expect(TerminalText.line(text) == text)
            #expect(TerminalText.lines(text) == text)
        }
    }
}
