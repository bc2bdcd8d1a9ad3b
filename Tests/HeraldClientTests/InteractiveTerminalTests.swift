import Foundation
import HeraldTestSupport
import Testing

/// The interactive client as a person uses it, through the real binaries in tmux: typing, keys, what the screen says.
@Suite("herald interactive terminal (tmux)", .serialized)
struct InteractiveTerminalTests {
    /// An interactive `herald` for `user` in its own tmux window; the pane stays after the exit so it can be read.
    private func terminal(_ server: TestServer, _ user: String, columns: Int = 80, rows: Int = 24, arguments: String = "") throws -> TmuxSession {
        let token = try server.token(user, name: user.prefix(1).uppercased() + user.dropFirst())
        let command = "\(HeraldBinaries.client) --server \(server.url) --token \(token) \(arguments); echo EXITED $?; sleep 30"
        let tmux = try TmuxSession(command: command, columns: columns, rows: rows)
        try tmux.waitScreen("\(user) online") { $0.contains("● online") }
        return tmux
    }

    /// Lines of the screen that show a message by `name` (`HH:MM Name: …`).
    private func messageRows(_ screen: String, by name: String) -> Int {
        screen.split(separator: "\n").filter { $0.range(of: #"^\d\d:\d\d \#(name): "#, options: .regularExpression) != nil }.count
    }

    @Test("Chat input: two people chat by typing plain text; /dm opens the thread, Enter on a list row opens it, Esc goes back")
    func twoPeopleChat() throws {
        let server = try TestServer()
        let alice = try terminal(server, "alice")
        let bob = try terminal(server, "bob")
        try alice.waitScreen("the empty list says how to start") { $0.contains("No conversations yet") && $0.contains("/dm <user>") }
        try alice.type("/dm bob")
        try alice.waitScreen("the thread with Bob open") { $0.contains("No messages yet") }
        try alice.type("hi bob, plain text is a message")
        try alice.waitScreen("the message as mine") { $0.contains("You: hi bob, plain text is a message") }
        try bob.waitScreen("a toast and the unread row") { $0.contains("[info] Alice") && $0.contains("1. Alice [1]") }
        try bob.key("Enter")  // the selected (first) row
        let thread = try bob.waitScreen("the thread, read") { $0.contains("Alice: hi bob, plain text is a message") && !$0.contains("Messages (1)") }
        #expect(thread.contains("── new"), "the unread divider above the first message that was unread")
        try bob.type("hello alice")
        try alice.waitScreen("bob's answer and Seen under mine") { $0.contains("Bob: hello alice") && $0.contains("Seen") }
        try bob.key("Escape")
        try bob.waitScreen("back on the list") { $0.contains("1. Alice") && $0.contains("↑↓ Enter open") }
        try bob.key("C-c")
        let exited = try bob.waitScreen("a clean exit with the terminal restored") { $0.contains("EXITED 0") }
        #expect(!exited.contains("● online"), "the alternate screen is left")
    }

    @Test("Help and mistakes: /help lists the commands, plain text outside a thread says what to do, /dm yourself is refused")
    func helpAndMistakes() throws {
        let server = try TestServer()
        let alice = try terminal(server, "alice")
        try alice.type("/help")
        try alice.waitScreen("the help screen") {
            $0.contains("/dm <user>") && $0.contains("/react") && $0.contains("/edit <text>") && $0.contains("PgUp/PgDn scroll")
                && $0.contains("^C quit")
        }
        try alice.key("Escape")
        try alice.type("help")
        try alice.waitScreen("a hint, not 'unknown command'") { $0.contains("No conversation is open") }
        try alice.type("/dm alice")
        try alice.waitScreen("dm with yourself refused") { $0.contains("that is you") }
        try alice.type("/state")
        try alice.waitScreen("state answered on the notice line") { $0.contains("state: list · badge 0 · online") }
        try alice.type("/nonsense")
        try alice.waitScreen("an unknown command named") { $0.contains("unknown command /nonsense") }
        // Tab completes command names.
        try alice.type("/he", enter: false)
        try alice.key("Tab")
        try alice.waitScreen("completed to /help") { $0.contains("> /help") }
    }

    @Test("A long message is read whole: wrapped over several rows, every word on screen")
    func longMessageWhole() throws {
        let server = try TestServer()
        let alice = try terminal(server, "alice")
        let bob = try server.client("bob", arguments: [])
        let c = try #require(try bob.ok("dm alice").string("conversation"))
        let words = (1...40).map { "word\($0)" }
        try bob.ok("send \(c) \(words.joined(separator: " ")) end.")
        try alice.type("/open 1")
        let screen = try alice.waitScreen("the whole message") { $0.contains("end.") }
        for word in words { #expect(screen.contains(word + " ") || screen.contains(word + "\n"), "\(word) is on screen") }
        #expect(screen.split(separator: "\n").allSatisfy { $0.count <= 80 })
    }

    @Test("Editing: Backspace removes a whole emoji (skin tone included), never half of one; arrows move inside the line")
    func emojiSurvivesBackspace() throws {
        let server = try TestServer()
        let alice = try terminal(server, "alice")
        let bob = try server.client("bob")
        let c = try #require(try bob.ok("dm alice").string("conversation"))
        try alice.type("/open 1")
        try alice.waitScreen("the thread") { $0.contains("No messages yet") }
        try alice.type("fixed 👍🏽👍🏽", enter: false)
        try alice.key("BSpace")
        try alice.key("Left")
        try alice.key("Left")
        try alice.type("!", enter: false)
        try alice.key("Enter")
        let message = try bob.waitEvent("message") { $0.string("conversation") == c }
        #expect(message.string("text") == "fixed! 👍🏽", "one grapheme removed, the cursor moved by characters")
    }

    @Test("Keys: Up/Down select in the list, PageUp/PageDown scroll the thread, End jumps to the newest, Ctrl-B opens the bell")
    func keyboardNavigation() throws {
        let server = try TestServer()
        let alice = try terminal(server, "alice")
        let bob = try server.client("bob")
        let carol = try server.client("carol")
        let withBob = try #require(try bob.ok("dm alice").string("conversation"))
        let withCarol = try #require(try carol.ok("dm alice").string("conversation"))
        for n in 1...30 { try bob.ok("send \(withBob) bob says \(n)") }
        try carol.ok("send \(withCarol) carol says hi")
        try alice.waitScreen("two rows, Carol first") { $0.contains("> 1. Carol") && $0.contains("2. Bob") }
        try alice.key("Down")
        try alice.waitScreen("Bob selected") { $0.contains("> 2. Bob") }
        try alice.key("Enter")
        try alice.waitScreen("Bob's newest at the bottom") { $0.contains("Bob: bob says 30") }
        try alice.key("PPage")
        let up = try alice.waitScreen("scrolled up a page") { !$0.contains("bob says 30") && $0.contains("Bob: bob says 5") }
        #expect(!up.contains("bob says 30"))
        try alice.key("NPage")
        try alice.waitScreen("back down") { $0.contains("bob says 30") }
        try alice.key("PPage")
        try alice.waitScreen("up again") { !$0.contains("bob says 30") }
        try bob.ok("send \(withBob) while you were up")
        try alice.waitScreen("new below, not shown") { $0.contains("1 new message") && !$0.contains("while you were up") }
        try alice.key("End")
        try alice.waitScreen("End jumps to the newest") { $0.contains("Bob: while you were up") && !$0.contains("new message (End)") }
        try carol.ok("send \(withCarol) a toast to dismiss")
        try alice.waitScreen("Carol's toast over Bob's thread") { $0.contains("[info] Carol") && $0.contains("^X dismiss") }
        try alice.key("C-x")
        try alice.waitScreen("dismissed by key") { !$0.contains("[info] Carol") }
        try alice.key("Escape")
        try carol.ok("follow alice")
        try alice.key("C-b")
        try alice.waitScreen("the bell feed") { $0.contains("Notifications") && $0.contains("followed you") }
    }

    @Test("U2/U3 on a real terminal: the viewport follows the height; a taller window shows and reads more, a toast opens by key")
    func resizeChangesWhatIsRead() throws {
        let server = try TestServer()
        let alice = try terminal(server, "alice", rows: 24)
        let bob = try server.client("bob")
        let c = try #require(try bob.ok("dm alice").string("conversation"))
        for n in 1...40 { try bob.ok("send \(c) line \(n)") }
        try alice.waitScreen("40 unread") { $0.contains("Messages (40)") }
        try alice.type("/open \(c)")
        // 24 rows: 8 for the header, toast, rules, notice, status and input; 1 for the title and 1 for "new messages":
        // the newest 14 on screen and read, 26 left (the unread divider sits above line 1, off screen).
        let short = try alice.waitScreen("14 read") { $0.contains("Messages (26)") }
        #expect(messageRows(short, by: "Bob") == 14)
        try alice.resize(columns: 80, rows: 40)
        let tall = try alice.waitScreen("16 more read after the resize") { $0.contains("Messages (10)") }
        #expect(messageRows(tall, by: "Bob") == 30)
        try alice.resize(columns: 80, rows: 20)
        let smaller = try alice.waitScreen("fewer rows shown, nothing unread again") { messageRows($0, by: "Bob") == 10 }
        #expect(smaller.contains("Messages (10)"))
        // A toast about another conversation opens with Ctrl-O.
        let carol = try server.client("carol")
        let withCarol = try #require(try carol.ok("dm alice").string("conversation"))
        try carol.ok("send \(withCarol) look here")
        try alice.waitScreen("the toast") { $0.contains("[info] Carol") && $0.contains("^O open") }
        try alice.key("C-o")
        try alice.waitScreen("Carol's thread") { $0.contains("Carol: look here") }
    }

    @Test("R1a on screen: a lost connection shows in the status line (never over the screen), a send waits marked, and both recover")
    func reconnectInStatusLine() throws {
        let server = try TestServer()
        let alice = try terminal(server, "alice")
        let bob = try server.client("bob")
        let c = try #require(try bob.ok("dm alice").string("conversation"))
        try bob.ok("send \(c) before")
        try alice.type("/open 1")
        try alice.waitScreen("the thread") { $0.contains("Bob: before") }
        server.kill()
        let offline = try alice.waitScreen("offline in the status line") { $0.contains("○ offline") }
        #expect(offline.split(separator: "\n").first?.hasPrefix("Herald · alice") == true, "the header stays in place")
        try alice.type("sent while offline")
        try alice.waitScreen("the send waits, marked") { $0.contains("You: sent while offline (sending…)") && $0.contains("1 waiting to send") }
        try server.restart()
        try alice.waitScreen("online again, the send delivered", timeout: .seconds(20)) {
            $0.contains("● online") && $0.contains("You: sent while offline") && !$0.contains("(sending…)")
        }
        try bob.waitEvent("message") { $0.string("text") == "sent while offline" }
    }

    @Test("N1, N4 on screen: /mute marks the row muted (and its messages raise no toast), /unread marks it with a dot and goes back")
    func muteAndMarkUnread() throws {
        let server = try TestServer()
        let alice = try terminal(server, "alice")
        let bob = try server.client("bob")
        let c = try #require(try bob.ok("dm alice").string("conversation"))
        try bob.ok("send \(c) first")
        try alice.waitScreen("Bob's row") { $0.contains("1. Bob [1]") }
        try alice.type("/mute 1")
        try alice.waitScreen("muted row") { $0.contains("1. Bob [1] 🔕") }
        try bob.ok("send \(c) while muted")
        try alice.waitScreen("counted, not toasted") { $0.contains("1. Bob [2] 🔕") && !$0.contains("[info] Bob") }
        try alice.key("Enter")
        try alice.waitScreen("read") { $0.contains("Bob: while muted") && !$0.contains("Messages (") }
        try alice.type("/unread")
        try alice.waitScreen("marked unread, back on the list") { $0.contains("1. Bob [•] 🔕") && $0.contains("Messages (1)") }
    }

    @Test("M1, M2 on screen: /edit marks your last message '(edited)' and reaches the other side; /unsend leaves 'You unsent a message' and a placeholder there")
    func editAndUnsend() throws {
        let server = try TestServer()
        let alice = try terminal(server, "alice")
        let bob = try server.client("bob", arguments: [])
        let c = try #require(try bob.ok("dm alice").string("conversation"))
        try bob.ok("send \(c) hi alice")
        try alice.type("/open 1")
        try alice.waitScreen("the thread") { $0.contains("Bob: hi alice") }
        try alice.type("/unsend")
        try alice.waitScreen("nothing of hers to unsend yet") { $0.contains("no message of yours here to unsend") }
        try alice.type("see you at 5")
        let mine = try bob.waitEvent("message") { $0.string("text") == "see you at 5" }
        try alice.waitScreen("stored") { $0.contains("You: see you at 5") && !$0.contains("sending…") }
        try alice.type("/edit see you at 6")
        try alice.waitScreen("edited") { $0.contains("You: see you at 6 (edited)") }
        try bob.waitEvent("message.edited") { $0.string("message") == mine.string("message") && $0.string("text") == "see you at 6" }
        try bob.ok("open thread \(c)")
        try alice.type("/unsend")
        try alice.waitScreen("the placeholder") { $0.contains("You unsent a message") && !$0.contains("see you at 6") }
        try bob.waitEvent("message.unsent") { $0.string("message") == mine.string("message") }
        let state = try bob.waitState("bob's thread keeps a placeholder") { ($0.viewport?["unsent"] as? [String]) == [mine.string("message") ?? ""] }
        #expect(state.visible.contains(mine.string("message") ?? ""))
    }
}
