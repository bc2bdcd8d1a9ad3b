import Foundation
import HeraldClient
import HeraldTestSupport
import Testing

/// Getting around in the interactive client through the real binaries in tmux: the first unread and the hint while
/// unread messages are above, the next conversation with activity, Home to the top of the history, date separators,
/// and the help, typo suggestions and `@` completion.
@Suite("herald interactive terminal: navigation, date separators, help (tmux)", .serialized)
struct InteractiveNavigationTests {
    /// An interactive `herald` for `user` in its own tmux window, with `environment` (`TZ=…`) before it.
    private func terminal(_ server: TestServer, _ user: String, columns: Int = 80, rows: Int = 24, environment: String = "") throws -> TmuxSession {
        let token = try server.token(user, name: user.prefix(1).uppercased() + user.dropFirst())
        let command = "\(environment) \(HeraldBinaries.client) --server \(server.url) --token \(token); echo EXITED $?; sleep 30"
        let tmux = try TmuxSession(command: command, columns: columns, rows: rows)
        try tmux.waitScreen("\(user) online") { $0.contains("● online") }
        return tmux
    }

    private func rows(_ screen: String) -> [String] { screen.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) }

    /// The numbers of `Bob: note NN` rows on screen.
    private func notes(_ screen: String) -> [Int] {
        rows(screen).compactMap { row in row.range(of: "Bob: note ").map { Int(row[$0.upperBound...].prefix(3).trimmingCharacters(in: .whitespaces)) ?? -1 } }
    }

    @Test("Alt-U: with 40 unread the thread opens at the newest and says how many unread are above; Alt-U shows the first unread under its divider, reading only what it brings on screen (U2)")
    func firstUnreadAndHint() throws {
        let server = try TestServer()
        _ = try server.token("alice", name: "Alice")
        let bob = try server.client("bob")
        let c = try #require(try bob.ok("dm alice").string("conversation"))
        for n in 1...40 { try bob.ok("send \(c) note \(n < 10 ? "0" : "")\(n)") }
        let alice = try terminal(server, "alice")
        try alice.waitScreen("forty unread") { $0.contains("Messages (40)") }
        try alice.type("/open 1")
        var screen = try alice.waitSettledScreen("the newest, and the hint") { $0.contains("Bob: note 40") && $0.contains("unread above (Alt-U)") }
        let shown = notes(screen)
        #expect(screen.contains("↑ \(40 - shown.count) unread above (Alt-U)"), "every unread message not on screen is counted")
        #expect(!shown.contains(1))
        try alice.key("M-u")
        screen = try alice.waitSettledScreen("the first unread at the top") { $0.contains("Bob: note 01") }
        let lines = rows(screen)
        let first = try #require(lines.firstIndex { $0.hasSuffix("Bob: note 01") })
        #expect(lines[first - 1].hasPrefix("────── new"), "the divider right above it")
        #expect(lines[first - 2].hasPrefix("── ") && lines[first - 2].hasSuffix(" ──"), "the conversation's first day above that")
        #expect(!screen.contains("unread above"), "nothing unread is above any more")
        let top = notes(screen)
        // U2: the jump read what it showed, not the messages it passed over: back at the newest, those between are
        // still unread above.
        try alice.key("End")
        screen = try alice.waitSettledScreen("back at the newest") { $0.contains("Bob: note 40") }
        let skipped = 40 - top.count - notes(screen).count
        #expect(skipped > 0)
        #expect(screen.contains("↑ \(skipped) unread above (Alt-U)"), "the ones never on screen are still counted")
    }

    @Test("Home on an empty line loads older pages up to the conversation's first message; End goes back to the newest")
    func homeLoadsTheWholeHistory() throws {
        let server = try TestServer()
        _ = try server.token("alice", name: "Alice")
        let bob = try server.client("bob")
        let c = try #require(try bob.ok("dm alice").string("conversation"))
        // More than the first page (50) the client loads on opening.
        for n in 1...60 { try bob.ok("send \(c) note \(n < 10 ? "0" : "")\(n)") }
        let alice = try terminal(server, "alice")
        try alice.waitScreen("sixty unread") { $0.contains("Messages (60)") }
        try alice.type("/open 1")
        try alice.waitSettledScreen("the newest") { $0.contains("Bob: note 60") }
        try alice.key("Home")
        let screen = try alice.waitSettledScreen("the first message") { $0.contains("Bob: note 01") }
        #expect(!screen.contains("Bob: note 60"))
        let lines = rows(screen)
        let title = try #require(lines.firstIndex { $0.hasPrefix("Bob") })
        #expect(lines[title + 1].hasPrefix("── "), "the top of the history: its day's separator is the first row")
        try alice.key("End")
        try alice.waitSettledScreen("the newest again") { $0.contains("Bob: note 60") && !$0.contains("Bob: note 01") }
    }

    @Test("Alt-A opens the most recent other conversation with unread messages, then the next; with none left it says so")
    func nextActiveConversation() throws {
        let server = try TestServer()
        let alice = try terminal(server, "alice")
        let bob = try server.client("bob")
        let carol = try server.client("carol")
        let dave = try server.client("dave")
        let b = try #require(try bob.ok("dm alice").string("conversation"))
        let d = try #require(try dave.ok("dm alice").string("conversation"))
        let k = try #require(try carol.ok("dm alice").string("conversation"))
        try dave.ok("send \(d) from dave")
        try alice.waitScreen("dave's message") { $0.contains("Messages (1)") }
        try bob.ok("send \(b) from bob")
        try alice.waitScreen("bob's") { $0.contains("Messages (2)") }
        try carol.ok("send \(k) from carol")
        try alice.waitScreen("three unread") { $0.contains("Messages (3)") }
        try alice.key("M-a")
        try alice.waitScreen("carol's, the most recent") { $0.contains("Carol: from carol") }
        try alice.key("M-a")
        try alice.waitScreen("then bob's") { $0.contains("Bob: from bob") }
        try alice.key("M-a")
        try alice.waitScreen("then dave's") { $0.contains("Dave: from dave") }
        try alice.key("M-a")
        try alice.waitScreen("none left") { $0.contains("no other conversation has unread messages") }
    }

    @Test("Date separators: two messages a second apart on either side of the terminal's local midnight get a day line between them")
    func dateSeparatorAtLocalMidnight() throws {
        let server = try TestServer()
        _ = try server.token("alice", name: "Alice")
        let bob = try server.client("bob")
        let c = try #require(try bob.ok("dm alice").string("conversation"))
        try bob.ok("send \(c) before midnight")
        // Local midnight is put at the next whole second (by the time zone the client runs in): the first message was
        // written before it, the second after it.
        let midnight = Int64(Date().timeIntervalSince1970) + 1
        while Date().timeIntervalSince1970 < Double(midnight) + 0.05 { usleep(10_000) }
        try bob.ok("send \(c) after midnight")
        var offset = Int((86_400 - midnight % 86_400) % 86_400)
        if offset > 43_200 { offset -= 86_400 }
        let magnitude = abs(offset)
        // POSIX TZ counts west of UTC as positive: "NAV-01:00:00" is an hour east.
        let zone = String(format: "NAV%@%02d:%02d:%02d", offset >= 0 ? "-" : "+", magnitude / 3600, magnitude / 60 % 60, magnitude % 60)
        let alice = try terminal(server, "alice", environment: "TZ=\(zone)")
        try alice.waitScreen("two unread") { $0.contains("Messages (2)") }
        try alice.type("/open 1")
        let screen = try alice.waitSettledScreen("both messages") { $0.contains("Bob: after midnight") }
        let today = CalendarDay.day(ofMilliseconds: midnight * 1000, utcOffsetSeconds: offset)
        let lines = rows(screen)
        let before = try #require(lines.firstIndex { $0.hasSuffix("Bob: before midnight") })
        let after = try #require(lines.firstIndex { $0.hasSuffix("Bob: after midnight") })
        #expect(lines[after - 1] == CalendarDay.line(day: today, today: today), "the new day above the message after midnight")
        #expect(after == before + 2)
        #expect(lines[before].hasPrefix("23:59 "), "written at 23:59:59 local time")
        #expect(lines[after].hasPrefix("00:00 "))
        #expect(lines.contains(CalendarDay.line(day: today - 1, today: today)), "the conversation's first day above its first message")
    }

    @Test("/help at 50x20 lists every command, a page at a time (PgDn, arrows), nothing cut off; /opne suggests /open")
    func helpScrollsAtFiftyByTwenty() throws {
        let server = try TestServer()
        let alice = try terminal(server, "alice", columns: 50, rows: 20)
        try alice.type("/help")
        var screen = try alice.waitSettledScreen("the first page") { $0.contains("Keys") && $0.contains("more below") }
        var seen = screen
        var pages = 0
        while screen.contains("more below") && pages < 20 {
            try alice.key("NPage")
            pages += 1
            let previous = screen
            screen = try alice.waitSettledScreen("the next page") { $0 != previous }
            seen += "\n" + screen
        }
        #expect(!screen.contains("more below"), "the last page reached")
        try alice.key("Up")
        let up = try alice.waitSettledScreen("an arrow scrolls one row") { $0 != screen }
        try alice.key("PPage")
        try alice.waitSettledScreen("PgUp scrolls back") { $0 != up && $0.contains("more below") }
        let words = Set(seen.split(whereSeparator: { $0 == " " || $0 == "\n" }).map(String.init))
        for command in ChatInput.commands {
            #expect(words.contains("/" + command.name), "/\(command.name) on some page")
            for word in command.summary.split(separator: " ") { #expect(words.contains(String(word)), "\(word) of /\(command.name)") }
        }
        for name in ["/quit", "/back", "/bell", "/open-url", "/bottom", "/read-all"] { #expect(words.contains(name)) }
        try alice.key("Escape")
        try alice.waitScreen("help closed") { !$0.contains("more below") && !$0.contains("more above") }
        try alice.type("/opne 1")
        try alice.waitScreen("a suggestion") { $0.contains("unknown command /opne; did you mean /open?") }
    }

    @Test("@ completion: in a group @b then Tab writes @bob, and the message sent mentions Bob (N2)")
    func mentionCompletes() throws {
        let server = try TestServer()
        let alice = try terminal(server, "alice")
        let bob = try server.client("bob")
        _ = try server.client("carol")
        let g = try #require(try bob.ok("group Team alice carol").string("conversation"))
        try bob.ok("send \(g) hello team")
        try alice.waitScreen("the group") { $0.contains("Team") && $0.contains("Messages (1)") }
        try alice.type("/open Team")
        try alice.waitScreen("the group's thread") { $0.contains("Bob: hello team") }
        try alice.type("thanks @b", enter: false)
        try alice.key("Tab")
        try alice.waitScreen("completed to a mention") { $0.contains("> thanks @bob") }
        let mark = bob.mark
        try alice.type("for this", enter: false)
        try alice.key("Enter")
        let event = try bob.waitEvent("message", after: mark) { $0.string("text") == "thanks @bob for this" }
        #expect(event.bool("mentioned") == true, "the server read it as a mention of Bob")
    }
}
