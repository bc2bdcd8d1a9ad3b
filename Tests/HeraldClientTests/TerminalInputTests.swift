import HeraldClient
import HeraldRules
import Testing

@Suite("Terminal input: keys from raw bytes, the line editor, chat commands")
struct TerminalInputTests {
    // MARK: - KeyDecoder

    @Test("Keys: CSI and SS3 sequences become arrows, Home/End, Delete and PageUp/PageDown (modifiers ignored)")
    func escapeSequences() {
        var decoder = KeyDecoder()
        let bytes = Array("\u{1B}[A\u{1B}[B\u{1B}[C\u{1B}[D\u{1B}OH\u{1B}[F\u{1B}[3~\u{1B}[5~\u{1B}[6~\u{1B}[1;5A".utf8)
        #expect(decoder.feed(bytes) == [.up, .down, .right, .left, .home, .end, .delete, .pageUp, .pageDown, .up])
    }

    @Test("Keys: Esc followed by a letter is Esc, then the letter (the old client swallowed it: `open list` became `pen list`)")
    func escapeThenText() {
        var decoder = KeyDecoder()
        #expect(decoder.feed(Array("\u{1B}open list".utf8)) == [.escape, .text("open list")])
        #expect(decoder.feed([0x1B]) == [.escape], "a lone Esc at the end of a read is Esc")
    }

    @Test("Keys: Alt plus a key (Esc and one character in one read, as terminals send it) is one key, not Esc then the key")
    func altKeys() {
        var decoder = KeyDecoder()
        #expect(decoder.feed(Array("\u{1B}1".utf8)) == [.alt("1")])
        #expect(decoder.feed(Array("\u{1B}x".utf8)) == [.alt("x")])
        #expect(decoder.feed([0x1B, 0x7F]) == [.alt("\u{7F}")], "Alt-Backspace")
        #expect(decoder.feed(Array("\u{1B}é".utf8)) == [.alt("é")], "a UTF-8 character after Esc")
        #expect(decoder.feed(Array("\u{1B}b\u{1B}b".utf8)) == [.alt("b"), .alt("b")], "a held Alt key repeats")
        #expect(decoder.feed(Array("\u{1B}[5~".utf8)) == [.pageUp], "CSI sequences are still keys")
        #expect(decoder.feed([0x1B, 0x0D]) == [.alt("\r")], "Alt-Enter")
        #expect(decoder.feed([0x1B, 0x09]) == [.escape, .tab], "Esc then another control key stays two keys")
    }

    @Test("Keys: a bracketed paste is one key holding the text whole (its line breaks are not Enter), also split across reads")
    func bracketedPaste() {
        var decoder = KeyDecoder()
        #expect(decoder.feed(Array("a\u{1B}[200~one\rtwo\u{1B}[201~b".utf8)) == [.text("a"), .paste("one\rtwo"), .text("b")])
        #expect(decoder.feed(Array("\u{1B}[200~x\ny\u{1B}[2".utf8)) == [], "waits for the end marker")
        #expect(decoder.feed(Array("01~\r".utf8)) == [.paste("x\ny"), .enter])
        let huge = Array("\u{1B}[200~".utf8) + Array(repeating: UInt8(ascii: "z"), count: KeyDecoder.maxPaste + 1)
        #expect(decoder.feed(huge) == [.paste(String(repeating: "z", count: KeyDecoder.maxPaste + 1))], "an endless paste is bounded")
    }

    @Test("Keys: a sequence or a UTF-8 character split across reads is joined, not lost or garbled")
    func splitAcrossReads() {
        var decoder = KeyDecoder()
        #expect(decoder.feed(Array("\u{1B}[".utf8)) == [])
        #expect(decoder.feed(Array("5~".utf8)) == [.pageUp])
        let thumbs = Array("👍".utf8)
        #expect(decoder.feed(thumbs.prefix(2)) == [])
        #expect(decoder.feed(thumbs.dropFirst(2)) == [.text("👍")])
    }

    @Test("Keys: Enter (CR, LF, CR LF once), Backspace (DEL and ^H), Tab and Ctrl letters; unknown function keys are ignored")
    func controlKeys() {
        var decoder = KeyDecoder()
        #expect(decoder.feed([0x0D, 0x0A, 0x0A, 0x7F, 0x08, 0x09, 0x03, 0x02]) == [.enter, .enter, .backspace, .backspace, .tab, .control("c"), .control("b")])
        #expect(decoder.feed(Array("\u{1B}OP\u{1B}[15~x".utf8)) == [.text("x")], "F1 and F5 do nothing")
    }

    // MARK: - LineEditor

    @Test("Editing: Backspace removes one grapheme (a skin-toned emoji, a flag, an accented letter), never a byte")
    func backspaceByGrapheme() {
        var editor = LineEditor()
        editor.insert("broken 👍🏽🇫🇷e\u{301}")
        editor.backspace()
        #expect(editor.text == "broken 👍🏽🇫🇷")
        editor.backspace()
        #expect(editor.text == "broken 👍🏽")
        editor.backspace()
        #expect(editor.text == "broken ")
    }

    @Test("Editing: a combining mark typed after a letter joins it; the cursor moves by characters; Ctrl-W/U/K delete")
    func cursorAndDeletes() {
        var editor = LineEditor()
        editor.insert("cafe")
        editor.insert("\u{301}")
        #expect(editor.characters.count == 4)
        editor.moveHome()
        editor.moveRight()
        editor.insert("X")
        #expect(editor.text == "cXafé")
        editor.moveEnd()
        editor.insert(" au lait")
        editor.deleteWordBackward()
        #expect(editor.text == "cXafé au ")
        editor.moveHome()
        editor.deleteToEnd()
        #expect(editor.isEmpty)
    }

    @Test("History: Up recalls earlier lines, Down comes back to what was being typed")
    func history() {
        var editor = LineEditor()
        editor.insert("one")
        _ = editor.submit()
        editor.insert("two")
        #expect(editor.submit() == "two")
        editor.insert("draft")
        editor.historyBack()
        #expect(editor.text == "two")
        editor.historyBack()
        #expect(editor.text == "one")
        editor.historyForward()
        editor.historyForward()
        #expect(editor.text == "draft")
    }

    @Test("A line longer than the screen scrolls so the cursor and the end stay visible; wide characters count two columns")
    func scrolledView() {
        var editor = LineEditor()
        editor.insert(String(repeating: "a", count: 30) + "END")
        let view = editor.view(width: 10)
        #expect(view.text.hasSuffix("END"))
        #expect(view.cursorColumn == 9)
        var wide = LineEditor()
        wide.insert("日本語")
        #expect(wide.view(width: 20).cursorColumn == 6)
    }

    // MARK: - Display width and wrapping

    @Test("Width: wide and emoji characters take two columns, combining marks none")
    func displayWidth() {
        #expect(DisplayWidth.of("abc") == 3)
        #expect(DisplayWidth.of("日本") == 4)
        #expect(DisplayWidth.of("👍🏽") == 2)
        #expect(DisplayWidth.of("e\u{301}") == 1)
        #expect(DisplayWidth.truncate("hello world", to: 6) == "hello…")
    }

    @Test("Wrap: words move whole, a word longer than a line is broken, line breaks are kept, nothing is lost")
    func wrap() {
        #expect(TextWrap.lines("the quick brown fox", first: 9, rest: 10) == ["the quick", "brown fox"])
        #expect(TextWrap.lines("abcdefghijkl", first: 5, rest: 5) == ["abcde", "fghij", "kl"])
        #expect(TextWrap.lines("one\ntwo", first: 20, rest: 20) == ["one", "two"])
        let text = (1...50).map { "w\($0)" }.joined(separator: " ")
        let lines = TextWrap.lines(text, first: 17, rest: 23)
        #expect(lines.joined(separator: " ") == text)
        #expect(lines.dropFirst().allSatisfy { DisplayWidth.of($0) <= 23 } && DisplayWidth.of(lines[0]) <= 17)
    }

    // MARK: - Chat input

    private let list = ChatContext(me: "alice", scene: .list, conversations: [("c1", "Bob"), ("c2", "Team A")], users: ["alice", "bob", "carol"], newestFromOthers: nil)
    private let thread = ChatContext(me: "alice", scene: .thread("c2"), conversations: [("c1", "Bob"), ("c2", "Team A")], users: ["alice", "bob", "carol"], newestFromOthers: "m9")

    @Test("Chat: in a thread plain text is sent (// sends a leading slash); outside one it says what to do")
    func plainText() {
        #expect(ChatInput.interpret("hello there", in: thread) == .send(conversation: "c2", text: "hello there"))
        #expect(ChatInput.interpret("//shrug", in: thread) == .send(conversation: "c2", text: "/shrug"))
        guard case .notice(let hint) = ChatInput.interpret("hello", in: list) else { Issue.record("no hint"); return }
        #expect(hint.contains("commands start with /"))
        #expect(ChatInput.interpret("/lock", in: list) == .commands([.lock]), "script commands work after a slash")
        #expect(ChatInput.interpret("   ", in: thread) == .nothing)
    }

    @Test("Chat: only /-prefixed input runs a command: bare words that are script commands run nothing on the list, and say how")
    func bareWordsRunNothing() {
        for line in ["sign-out", "sign-out phone", "leave c2", "lock", "open thread c1", "quit", "bell read-all", "mark-unread c1"] {
            guard case .notice(let hint) = ChatInput.interpret(line, in: list) else {
                Issue.record("\(line) ran something on the list")
                continue
            }
            #expect(hint.contains("commands start with /"), "\(hint)")
        }
        #expect(ChatInput.interpret("sign-out", in: thread) == .send(conversation: "c2", text: "sign-out"), "in a thread a bare word is a message")
    }

    @Test("Chat: /sign-out and /leave ask (y/N) before they run; the question names what is lost")
    func destructiveCommandsAsk() {
        guard case .confirm(let question, let commands) = ChatInput.interpret("/sign-out", in: list) else {
            Issue.record("/sign-out did not ask")
            return
        }
        #expect(commands == [.signOut(device: nil)] && question.contains("every device") && question.hasSuffix("(y/N)"))
        #expect(ChatInput.interpret("/sign-out phone", in: list) == .confirm(question: "Sign out the device phone? Its tokens stop working. (y/N)", commands: [.signOut(device: "phone")]))
        guard case .confirm(let leaving, let leave) = ChatInput.interpret("/leave", in: thread) else {
            Issue.record("/leave did not ask")
            return
        }
        #expect(leave == [.leave(conversation: "c2")] && leaving.contains("Team A") && leaving.hasSuffix("(y/N)"))
        guard case .notice = ChatInput.interpret("/sign-out a b", in: list) else {
            Issue.record("/sign-out with two devices ran")
            return
        }
    }

    @Test("Chat: /commands map to script commands; /open takes a number, a title or an id; /react defaults to the newest")
    func slashCommands() {
        #expect(ChatInput.interpret("/help", in: list) == .help)
        #expect(ChatInput.interpret("/dm bob", in: list) == .commands([.dm(user: "bob")]))
        #expect(ChatInput.interpret("/open 2", in: list) == .commands([.open(.thread("c2"))]))
        #expect(ChatInput.interpret("/open team", in: list) == .commands([.open(.thread("c2"))]))
        #expect(ChatInput.interpret("/open c1", in: list) == .commands([.open(.thread("c1"))]))
        #expect(ChatInput.interpret("/group \"Book club\" bob carol", in: list) == .commands([.group(title: "Book club", members: ["bob", "carol"])]))
        #expect(ChatInput.interpret("/react 👍", in: thread) == .commands([.react(message: "m9", emoji: "👍")]))
        #expect(ChatInput.interpret("/members", in: thread) == .commands([.members(conversation: "c2")]))
        #expect(ChatInput.interpret("/back", in: thread) == .commands([.open(.list)]))
        #expect(ChatInput.interpret("/scroll up 3", in: thread) == .commands([.scroll(.up(3))]), "any script command after a slash")
        #expect(ChatInput.interpret("/mute 60", in: thread) == .commands([.mute(conversation: "c2", minutes: 60)]))
        #expect(ChatInput.interpret("/mute bob", in: list) == .commands([.mute(conversation: "c1", minutes: nil)]))
        #expect(ChatInput.interpret("/unread", in: thread) == .commands([.markUnread(conversation: "c2"), .open(.list)]))
        #expect(ChatInput.interpret("/quiet on", in: list) == .commands([.quiet(on: true)]))
    }

    @Test("Chat: mistakes get a notice and run nothing: /dm yourself, an unknown command, a missing argument, an unknown /open")
    func mistakes() {
        for line in ["/dm alice", "/frobnicate", "/dm", "/open nobody", "/react 👍"] {
            guard case .notice = ChatInput.interpret(line, in: list) else {
                Issue.record("\(line) ran something")
                continue
            }
        }
    }

    @Test("Tab: completes command names, user ids after /dm, titles after /open; several matches are listed")
    func completion() {
        #expect(ChatInput.complete("/d", in: list).line == "/dm ")
        #expect(ChatInput.complete("/dm c", in: list).line == "/dm carol ")
        #expect(ChatInput.complete("/open Te", in: list).line == "/open Team A ")
        let both = ChatInput.complete("/dm ", in: list)
        #expect(both.line == nil && both.matches == ["bob", "carol"], "yourself is not offered")
        #expect(ChatInput.complete("/zz", in: list).line == nil)
    }
}
