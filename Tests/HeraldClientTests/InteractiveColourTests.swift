import Foundation
import HeraldTestSupport
import Testing
@testable import HeraldClient

/// Colour with meaning and the terminal bell, through the real binaries in tmux: what the screen's cells hold
/// (`capture-pane -e`) and the bytes the client wrote (`pipe-pane`).
@Suite("herald interactive: colour with meaning, NO_COLOR, the bell, mute and quiet in the header (tmux)", .serialized)
struct InteractiveColourTests {
    /// `environment` replaces the colour setting the test runner passes down (it may set NO_COLOR itself): colour is
    /// on unless the test says otherwise.
    private func terminal(_ server: TestServer, _ user: String, environment: String = "", arguments: String = "") throws -> TmuxSession {
        let token = try server.token(user, name: user.prefix(1).uppercased() + user.dropFirst())
        let command = "env -u NO_COLOR -u HERALD_NO_COLOR \(environment) \(HeraldBinaries.client) --server \(server.url) --token \(token) \(arguments); echo EXITED $?; sleep 30"
        let tmux = try TmuxSession(command: command)
        try tmux.waitScreen("\(user) online") { $0.contains("● online") }
        return tmux
    }

    /// The row of the attributed screen that shows `text`.
    private func row(_ attributed: String, containing text: String) -> String {
        attributed.split(separator: "\n").first { TerminalStyleProbe.visible(String($0)).contains(text) }.map(String.init) ?? ""
    }

    @Test("Bob's name in his own colour, a mention of me bold yellow, my name bold, the online dot green; a peer's SGR in the text is never obeyed")
    func coloursWithMeaning() throws {
        let server = try TestServer()
        let alice = try terminal(server, "alice")
        let bob = try server.client("bob")
        let c = try #require(try bob.ok("dm alice").string("conversation"))
        try bob.ok("send \(c) @alice lunch?")
        // On the list, Bob's message is a toast of kind info: its kind in cyan.
        try alice.waitScreen("the toast") { $0.contains("[info] Bob") }
        let toast = row(try alice.screenWithAttributes(), containing: "[info] Bob")
        #expect(toast.contains("\u{1B}[36m[info]"), "an info toast's kind in cyan: \(toast.debugDescription)")
        try bob.ok("send \(c) plain \u{1B}[35mnot mine")
        try alice.type("/open 1")
        try alice.waitScreen("the thread") { $0.contains("Bob: @alice lunch?") && $0.contains("not mine") }
        try alice.type("sure")
        try alice.waitScreen("my message") { $0.contains("You: sure") && !$0.contains("sending") }
        let attributed = try alice.screenWithAttributes()
        let nick = TerminalStyle.nickPalette[NickColour.index(of: "bob")]
        let mention = row(attributed, containing: "Bob: @alice lunch?")
        #expect(mention.contains("\u{1B}[\(nick)mBob"), "Bob's nick colour: \(mention.debugDescription)")
        #expect(mention.contains("\u{1B}[1m\u{1B}[33m@alice lunch?"), "the mention bold yellow: \(mention.debugDescription)")
        let plain = row(attributed, containing: "not mine")
        #expect(!plain.contains("\u{1B}[35m"), "the peer's magenta is shown as text, not obeyed: \(plain.debugDescription)")
        #expect(plain.contains("␛[35m"), "…as its control picture: \(plain.debugDescription)")
        let mine = row(attributed, containing: "You: sure")
        #expect(mine.contains("1mYou"), "my name bold: \(mine.debugDescription)")
        let status = row(attributed, containing: "● online")
        #expect(status.contains("\u{1B}[32m●"), "the online dot green: \(status.debugDescription)")
        server.kill()
        try alice.waitScreen("offline") { $0.contains("○ offline") }
        let offline = row(try alice.screenWithAttributes(), containing: "○ offline")
        #expect(offline.contains("\u{1B}[31m○"), "the offline dot red: \(offline.debugDescription)")
    }

    @Test("NO_COLOR (no-color.org) and --no-color: not one colour on screen; bold and reverse stay, so a mention still stands out")
    func noColourHonoured() throws {
        let server = try TestServer()
        for (environment, arguments) in [("NO_COLOR=1", ""), ("", "--no-color")] {
            let alice = try terminal(server, "alice", environment: environment, arguments: arguments)
            let bob = try server.client("bob")
            let c = try #require(try bob.ok("dm alice").string("conversation"))
            try bob.ok("send \(c) @alice \(arguments.isEmpty ? "env" : "flag")")
            try alice.type("/open 1")
            try alice.waitScreen("the thread") { $0.contains("Bob: @alice \(arguments.isEmpty ? "env" : "flag")") }
            let attributed = try alice.screenWithAttributes()
            #expect(TerminalStyleProbe.colours(attributed).isEmpty, "\(environment)\(arguments): colours \(TerminalStyleProbe.colours(attributed))")
            #expect(row(attributed, containing: "Bob: @alice").contains("\u{1B}[1m@alice") || row(attributed, containing: "Bob: @alice").contains(";1m@alice"),
                    "the mention bold: \(row(attributed, containing: "Bob: @alice").debugDescription)")
            try alice.key("C-c")
            _ = bob.quit()
        }
    }

    @Test("--terminal-bell: a DM out of sight rings the terminal bell once; the same thread open does not; without --terminal-bell nothing rings")
    func bellOnDirectMessage() throws {
        let server = try TestServer()
        let record = FileManager.default.temporaryDirectory.appendingPathComponent("herald-bell-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: record) }
        let alice = try terminal(server, "alice", arguments: "--terminal-bell")
        try alice.recordOutput(to: record)
        let bob = try server.client("bob")
        let c = try #require(try bob.ok("dm alice").string("conversation"))
        try alice.waitScreen("Bob's row") { $0.contains("1. Bob") }
        func bells() -> Int { ((try? Data(contentsOf: URL(fileURLWithPath: record))) ?? Data()).filter { $0 == 0x07 }.count }
        try bob.ok("send \(c) ping")
        try alice.waitScreen("the message counted") { $0.contains("1. Bob [1]") }
        try waitUntil("the bell rang") { bells() == 1 }
        try alice.type("/open 1")
        try alice.waitScreen("the thread") { $0.contains("Bob: ping") }
        try bob.ok("send \(c) in sight")
        try alice.waitScreen("the second message") { $0.contains("Bob: in sight") }
        try alice.key("C-l")  // one more frame drawn after the message: any bell for it was written before
        try alice.waitScreen("still there") { $0.contains("Bob: in sight") }
        #expect(bells() == 1, "no bell for a message in the open thread")

        let quietRecord = record + "-off"
        defer { try? FileManager.default.removeItem(atPath: quietRecord) }
        let carol = try terminal(server, "carol")
        try carol.recordOutput(to: quietRecord)
        let c2 = try #require(try bob.ok("dm carol").string("conversation"))
        try bob.ok("send \(c2) hello carol")
        try carol.waitScreen("counted") { $0.contains("1. Bob [1]") }
        try carol.key("C-l")
        try carol.waitScreen("redrawn") { $0.contains("1. Bob [1]") }
        let written = (try? Data(contentsOf: URL(fileURLWithPath: quietRecord))) ?? Data()
        #expect(!written.isEmpty && !written.contains(0x07), "off by default: no bell")
    }

    @Test("The header says when the open conversation is muted (N1) and when quiet hours are on (N3)")
    func muteAndQuietInTheHeader() throws {
        let server = try TestServer()
        let alice = try terminal(server, "alice")
        let bob = try server.client("bob")
        let c = try #require(try bob.ok("dm alice").string("conversation"))
        try bob.ok("send \(c) hi")
        try alice.type("/open 1")
        try alice.waitScreen("the thread") { $0.contains("Bob: hi") }
        try alice.type("/mute")
        try alice.waitScreen("muted in the header") { $0.split(separator: "\n").first?.contains("🔕 muted") == true }
        try alice.type("/quiet on")
        try alice.waitScreen("quiet in the header") { $0.split(separator: "\n").first?.contains("quiet hours") == true }
        try alice.type("/unmute")
        try alice.type("/quiet off")
        try alice.waitScreen("both gone") { ($0.split(separator: "\n").first.map { !$0.contains("muted") && !$0.contains("quiet") }) == true }
    }

    private func waitUntil(_ what: String, timeout: Duration = .seconds(10), _ condition: () -> Bool) throws {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if condition() { return }
            usleep(50_000)
        }
        throw ProcessHarnessError("never: \(what)")
    }
}

/// Reads what tmux's `capture-pane -e` wrote: its SGR sequences and the text between them.
enum TerminalStyleProbe {
    /// The row without its escape sequences.
    static func visible(_ row: String) -> String {
        row.replacingOccurrences(of: #"\x{1B}\[[0-9;]*m"#, with: "", options: .regularExpression)
    }

    /// Every colour an SGR sequence of `screen` sets (foreground 30-37, 90-97, background 40-47, 100-107, 38/48
    /// extended); the defaults 39 and 49 are no colour.
    static func colours(_ screen: String) -> [String] {
        let regex = try? NSRegularExpression(pattern: #"\x{1B}\[([0-9;]*)m"#)
        let range = NSRange(screen.startIndex..., in: screen)
        var found: [String] = []
        for match in regex?.matches(in: screen, range: range) ?? [] {
            guard let parameters = Range(match.range(at: 1), in: screen) else { continue }
            for parameter in screen[parameters].split(separator: ";") {
                guard let value = Int(parameter) else { continue }
                if (30...38).contains(value) || (40...48).contains(value) || (90...97).contains(value) || (100...107).contains(value) {
                    found.append(String(value))
                }
            }
        }
        return found
    }
}
