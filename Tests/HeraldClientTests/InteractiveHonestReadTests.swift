import Foundation
import HeraldTestSupport
import Testing

/// U2 on a real terminal: a message taller than the thread area is read only once every row of it was on screen.
@Suite("herald interactive terminal: honest reads of tall messages (tmux)", .serialized)
struct InteractiveHonestReadTests {
    /// An interactive `herald` for `user` in its own tmux window.
    private func terminal(_ server: TestServer, _ user: String, columns: Int, rows: Int) throws -> TmuxSession {
        let token = try server.token(user, name: user.prefix(1).uppercased() + user.dropFirst())
        let command = "\(HeraldBinaries.client) --server \(server.url) --token \(token); echo EXITED $?; sleep 30"
        let tmux = try TmuxSession(command: command, columns: columns, rows: rows)
        try tmux.waitScreen("\(user) online") { $0.contains("● online") }
        return tmux
    }

    /// Exactly `count` characters: `FIRSTWORD`, numbered words `w1 w2 …`, filler, then `LASTWORD`.
    private func tallText(_ count: Int) -> String {
        let last = " LASTWORD"
        var text = "FIRSTWORD"
        var number = 1
        while text.count + " w\(number)".count + last.count + 2 <= count {
            text += " w\(number)"
            number += 1
        }
        text += " " + String(repeating: "z", count: count - text.count - last.count - 1) + last
        return text
    }

    /// The numbered words on screen.
    private func wordNumbers(_ screen: String) -> [Int] {
        screen.split(whereSeparator: { $0 == " " || $0 == "\n" }).compactMap { word in
            word.hasPrefix("w") ? Int(word.dropFirst()) : nil
        }
    }

    @Test(
        "U2 at 80x24 (and 50x20, 120x40): a 5,000-character message opens on its last rows and is not read (no receipt); PgUp scrolls by rows, keeping one, up to its first row; only then is it read",
        arguments: [(80, 24), (50, 20), (120, 40)])
    func tallMessageReadOnlyOnceWhole(columns: Int, rows: Int) throws {
        let server = try TestServer()
        let alice = try terminal(server, "alice", columns: columns, rows: rows)
        let bob = try server.client("bob")
        let c = try #require(try bob.ok("dm alice").string("conversation"))
        let text = tallText(5000)
        #expect(text.count == 5000)
        let m = try #require(try bob.ok("send \(c) \(text)").string("message"))
        try alice.waitScreen("one unread") { $0.contains("Messages (1)") }
        try alice.type("/open 1")
        var screen = try alice.waitScreen("the message's last rows") { $0.contains("LASTWORD") }
        #expect(!screen.contains("FIRSTWORD"), "the message is taller than the thread area")
        #expect(screen.contains("Messages (1)"), "only its last rows were on screen: still unread")

        var pages = 0
        var barriers = 0
        while !screen.contains("Bob: FIRSTWORD") {
            // Not read yet: the header still counts it (the count drops when the client reads), and the sender has no
            // receipt.
            #expect(screen.contains("Messages (1)"), "not read before its first row was on screen (page \(pages))")
            #expect(bob.events("receipt").isEmpty, "no receipt while part of the message was never on screen (page \(pages))")
            // At the start and again near the top: Alice's typing report reaches Bob after any read she would have
            // sent, so once Bob sees her typing, a receipt would have arrived. (Typing reports are paced: only two.)
            if barriers == 0 || (barriers == 1 && (wordNumbers(screen).min() ?? 0) < 250) {
                barriers += 1
                let mark = bob.mark
                try alice.type("x", enter: false)
                try bob.waitEvent("typing", after: mark) { ($0.array("users") as? [String]) == ["alice"] }
                #expect(bob.events("receipt").isEmpty, "no receipt after the barrier (page \(pages))")
                try alice.key("BSpace")
            }

            let before = wordNumbers(screen)
            let top = try #require(before.min())
            try alice.key("PPage")
            pages += 1
            screen = try alice.waitSettledScreen("scrolled up by rows") { $0.contains("FIRSTWORD") || (wordNumbers($0).min() ?? top) < top }
            let after = wordNumbers(screen)
            // One page is the thread area's rows less one: the old top row is now the bottom row, so no row is skipped.
            #expect(after.contains(top), "the row that was at the top is still on screen (page \(pages))")
            #expect(!after.contains(try #require(before.max())), "moved by rows, not by whole messages")
            #expect(pages < 40)
            if pages >= 40 { break }
        }
        if columns == 80 {
            #expect(pages >= 4, "about seventy rows in a fourteen-row area take several pages")
            #expect(barriers == 2, "Bob was checked for a receipt near the top as well")
        }
        try alice.waitScreen("read once every row was on screen") { !$0.contains("Messages (") }
        try bob.waitEvent("receipt") { $0.string("message") == m && $0.string("reader") == "alice" }
    }

    @Test("The \"new\" divider sits above the real first unread message, also when more are unread than the first page loads")
    func dividerAtFirstUnreadBeyondFirstPage() throws {
        let server = try TestServer()
        let alice = try terminal(server, "alice", columns: 80, rows: 24)
        let bob = try server.client("bob")
        let c = try #require(try bob.ok("dm alice").string("conversation"))
        try bob.ok("send \(c) read before")
        // Read on Alice's other device (U4), so the terminal has none of the thread loaded when it opens it.
        let phone = try server.client("alice")
        try phone.ok("open thread \(c)")
        try phone.ok("open list")
        try alice.waitScreen("read elsewhere") { $0.contains("1. Bob") && !$0.contains("Messages (") }
        for n in 1...60 { try bob.ok("send \(c) note \(n < 10 ? "0" : "")\(n)") }
        try alice.waitScreen("sixty unread") { $0.contains("Messages (60)") }
        try alice.type("/open 1")
        var screen = try alice.waitScreen("the newest") { $0.contains("Bob: note 60") }
        var pages = 0
        while !screen.contains("Bob: read before") && pages < 12 {
            try alice.key("PPage")
            pages += 1
            let before = screen
            screen = try alice.waitScreen("scrolled up") { $0 != before && !$0.contains("Bob: note 60") }
        }
        let rows = screen.split(separator: "\n").map(String.init)
        let first = try #require(rows.firstIndex { $0.hasSuffix("Bob: note 01") })
        #expect(rows[first - 1].hasPrefix("────── new"), "the divider is right above the first of the sixty")
        #expect(rows.filter { $0.hasPrefix("────── new") }.count == 1, "and nowhere else")
    }

    @Test("U2 at 80x24: fourteen unread one-line messages fill the fourteen-row area; the divider above them is cut off, yet all are read")
    func dividerCutOffDoesNotKeepAMessageUnread() throws {
        let server = try TestServer()
        let alice = try terminal(server, "alice", columns: 80, rows: 24)
        let bob = try server.client("bob")
        let c = try #require(try bob.ok("dm alice").string("conversation"))
        for n in 1...14 { try bob.ok("send \(c) short \(n)") }
        try alice.waitScreen("fourteen unread") { $0.contains("Messages (14)") }
        try alice.type("/open 1")
        let screen = try alice.waitScreen("all fourteen on screen") { $0.contains("Bob: short 1\n") && $0.contains("Bob: short 14") }
        #expect(!screen.contains("────── new"), "the divider row is just above the area")
        try alice.waitScreen("every message on screen is read") { !$0.contains("Messages (") }
    }

    @Test("U2: a message that arrives while /help covers the open thread is not read until the help is closed and it is on screen")
    func helpOverTheThreadReadsNothing() throws {
        let server = try TestServer()
        let alice = try terminal(server, "alice", columns: 80, rows: 24)
        let bob = try server.client("bob")
        let c = try #require(try bob.ok("dm alice").string("conversation"))
        try bob.ok("send \(c) before help")
        try alice.waitScreen("one unread") { $0.contains("Messages (1)") }
        try alice.type("/open 1")
        try alice.waitScreen("read") { $0.contains("Bob: before help") && !$0.contains("Messages (") }
        try alice.type("/help")
        try alice.waitScreen("the help over the thread") { $0.contains("PgUp/PgDn scroll") && !$0.contains("Bob: before help") }
        let m = try #require(try bob.ok("send \(c) during help").string("message"))
        try alice.waitScreen("counted unread, not read") { $0.contains("Messages (1)") && $0.contains("PgUp/PgDn scroll") }
        #expect(bob.events("receipt").allSatisfy { $0.string("message") != m }, "no receipt while the help covered it")
        try alice.key("Escape")
        try alice.waitScreen("help closed: on screen and read") { $0.contains("Bob: during help") && !$0.contains("Messages (") }
        try bob.waitEvent("receipt") { $0.string("message") == m && $0.string("reader") == "alice" }
    }
}
