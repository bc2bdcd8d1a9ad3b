import Foundation
import HeraldTestSupport
import Testing

/// Typed text is not lost by a stray key (tmux, real binaries): Esc, Alt keys, Ctrl-D, quitting, switching conversations.
@Suite("herald interactive terminal: drafts are kept (tmux)", .serialized)
struct InteractiveDraftTests {
    /// An interactive `herald` for `user` in its own 80x24 tmux window; the pane stays after the exit so it can be read.
    private func terminal(_ server: TestServer, _ user: String) throws -> TmuxSession {
        let token = try server.token(user, name: user.prefix(1).uppercased() + user.dropFirst())
        let command = "\(HeraldBinaries.client) --server \(server.url) --token \(token); echo EXITED $?; sleep 30"
        let tmux = try TmuxSession(command: command, columns: 80, rows: 24)
        try tmux.waitScreen("\(user) online") { $0.contains("● online") }
        return tmux
    }

    /// The composer's line (the last line starting with `> `), without the prompt.
    private func composer(_ screen: String) -> String? {
        screen.split(separator: "\n").last { $0.hasPrefix(">") }.map { String($0.dropFirst(2)) }
    }

    @Test("Drafts: one Esc with text only warns, a second clears; an Alt key is one key and leaves the text; Ctrl-D with text does not quit; Ctrl-C with a draft asks (N keeps it), a second Ctrl-C quits")
    func strayKeysKeepTheDraft() throws {
        let server = try TestServer()
        let alice = try terminal(server, "alice")
        let bob = try server.client("bob")
        _ = try #require(try bob.ok("dm alice").string("conversation"))
        try alice.waitScreen("Bob's row") { $0.contains("1. Bob") }
        try alice.type("/open 1")
        try alice.waitScreen("the thread") { $0.contains("No messages yet") }
        try alice.type("keep me", enter: false)
        try alice.waitScreen("typed") { composer($0) == "keep me" }
        try alice.key("Escape")
        try alice.waitScreen("a hint, the text kept") { $0.contains("Esc again clears the line") && composer($0) == "keep me" }
        try alice.key("Escape")
        try alice.waitScreen("the second Esc clears") { composer($0) == "" && !$0.contains("Esc again") }
        #expect(try alice.screen().contains("No messages yet"), "still in the thread: Esc with text never also goes back")

        try alice.type("keep me", enter: false)
        try alice.key("M-x")
        try alice.key("M-q")
        try alice.type("!", enter: false)
        try alice.waitScreen("Alt keys neither cleared the line nor typed a letter") { composer($0) == "keep me!" }
        try alice.key("C-d")
        try alice.type("?", enter: false)
        let kept = try alice.waitScreen("Ctrl-D with text did not quit") { composer($0) == "keep me!?" }
        #expect(kept.contains("● online") && !kept.contains("EXITED"))

        try alice.key("C-c")
        try alice.waitScreen("asked before losing the draft") { $0.contains("Quit? a draft will be lost. (y/N)") }
        try alice.key("n")
        try alice.waitScreen("no: still running, the draft kept") { $0.contains("cancelled") && composer($0) == "keep me!?" }
        try alice.key("C-c")
        try alice.waitScreen("asked again") { $0.contains("Quit? a draft will be lost. (y/N)") }
        try alice.key("C-c")
        try alice.waitScreen("a second Ctrl-C quits") { $0.contains("EXITED 0") }
    }

    @Test("Drafts: each conversation keeps its own (Alt-1/Alt-2 switch, as irssi's windows); /quit with a send still queued asks and y quits")
    func draftPerConversationAndQueuedSends() throws {
        let server = try TestServer()
        let alice = try terminal(server, "alice")
        let bob = try server.client("bob")
        let carol = try server.client("carol")
        let withBob = try #require(try bob.ok("dm alice").string("conversation"))
        try bob.ok("send \(withBob) from bob")
        let withCarol = try #require(try carol.ok("dm alice").string("conversation"))
        try carol.ok("send \(withCarol) from carol")
        try alice.waitScreen("two rows, Carol first") { $0.contains("1. Carol") && $0.contains("2. Bob") }
        try alice.key("M-1")
        try alice.waitScreen("Carol's thread") { $0.contains("Carol: from carol") }
        try alice.type("for carol", enter: false)
        try alice.key("M-2")
        try alice.waitScreen("Bob's thread, an empty composer") { $0.contains("Bob: from bob") && composer($0) == "" }
        try alice.type("for bob", enter: false)
        try alice.key("M-1")
        try alice.waitScreen("Carol's draft back") { $0.contains("Carol: from carol") && composer($0) == "for carol" }
        try alice.key("M-2")
        try alice.waitScreen("Bob's draft back") { $0.contains("Bob: from bob") && composer($0) == "for bob" }
        try alice.key("Enter")
        try bob.waitEvent("message") { $0.string("text") == "for bob" }
        try alice.waitScreen("sent") { $0.contains("You: for bob") && !$0.contains("sending…") }

        server.kill()
        try alice.waitScreen("offline") { $0.contains("○ offline") }
        try alice.type("queued while offline")
        try alice.waitScreen("queued") { $0.contains("1 waiting to send") }
        try alice.type("/quit")
        try alice.waitScreen("asked before losing it") { $0.contains("Quit? 1 unsent message and a draft will be lost. (y/N)") }
        try alice.key("y")
        try alice.waitScreen("y quits") { $0.contains("EXITED 0") }
    }

    @Test("Paste and multi-line compose: a bracketed paste of several lines is one message, sent after a y/N question (N sends nothing); a one-line paste waits in the composer; Alt-Enter starts a new line of the same message")
    func multiLinePasteIsOneMessage() throws {
        let server = try TestServer()
        let alice = try terminal(server, "alice")
        let bob = try server.client("bob")
        let c = try #require(try bob.ok("dm alice").string("conversation"))
        try alice.waitScreen("Bob's row") { $0.contains("1. Bob") }
        try alice.type("/open 1")
        try alice.waitScreen("the thread") { $0.contains("No messages yet") }
        try alice.paste("first line\nsecond line\nthird line")
        try alice.waitScreen("asked once, naming the lines") { $0.contains("Send the 3 pasted lines as one message? (y/N)") }
        try alice.key("n")
        try alice.waitScreen("cancelled") { $0.contains("cancelled") && composer($0) == "" }
        try alice.type("note: ", enter: false)
        try alice.paste("first line\nsecond line\n")
        try alice.waitScreen("asked again") { $0.contains("Send the 2 pasted lines as one message? (y/N)") }
        try alice.key("y")
        let message = try bob.waitEvent("message") { $0.string("conversation") == c }
        #expect(message.string("text") == "note: first line\nsecond line", "one message with its line breaks, typed text first")
        try alice.waitScreen("the composer emptied") { $0.contains("You: note: first line") && composer($0) == "" }
        #expect(bob.events("message").count == 1, "the lines were not sent one by one")
        try alice.paste("just one line")
        try alice.waitScreen("a one-line paste waits for Enter") { composer($0) == "just one line" }
        try alice.key("C-u")

        // Multi-line compose: Alt-Enter starts a new line (shown ↵ on the input line); Enter sends the whole.
        try alice.type("line one", enter: false)
        try alice.key("M-Enter")
        try alice.type("line two", enter: false)
        try alice.waitScreen("two lines in the composer") { composer($0) == "line one↵line two" }
        let mark = bob.mark
        try alice.key("Enter")
        let composed = try bob.waitEvent("message", after: mark) { $0.string("conversation") == c }
        #expect(composed.string("text") == "line one\nline two")
    }
}
