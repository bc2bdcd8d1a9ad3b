import Foundation
import HeraldTestSupport
import Testing

/// Select mode and reactions on screen, through the real binaries in tmux: any message in sight can be picked for
/// `/edit`, `/unsend` and `/react` (M1, M2: only one's own can change), and reactions show under their message,
/// live, from whoever reacts.
@Suite("herald interactive: select any message, reactions under it (tmux)", .serialized)
struct InteractiveSelectionTests {
    private func terminal(_ server: TestServer, _ user: String) throws -> TmuxSession {
        let token = try server.token(user, name: user.prefix(1).uppercased() + user.dropFirst())
        let tmux = try TmuxSession(command: "\(HeraldBinaries.client) --server \(server.url) --token \(token); echo EXITED $?; sleep 30")
        try tmux.waitScreen("\(user) online") { $0.contains("● online") }
        return tmux
    }

    private func rows(_ screen: String) -> [String] { screen.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) }

    /// The attributed row (`capture-pane -e`) whose text holds `text`.
    private func attributedRow(_ tmux: TmuxSession, containing text: String) throws -> String {
        try tmux.screenWithAttributes().split(separator: "\n").first {
            $0.replacingOccurrences(of: #"\x{1B}\[[0-9;]*m"#, with: "", options: .regularExpression).contains(text)
        }.map(String.init) ?? ""
    }

    @Test("Ctrl-S and ↑ pick an older message of mine (drawn reversed), e edits exactly it; a pick of Bob's says it is his; r reacts to it and '👍 1' shows under it, then Bob's ❤ joins live")
    func selectEditAndReact() throws {
        let server = try TestServer()
        let alice = try terminal(server, "alice")
        let bob = try server.client("bob")
        let c = try #require(try bob.ok("dm alice").string("conversation"))
        try bob.ok("send \(c) first from bob")
        try alice.type("/open 1")
        try alice.waitScreen("the thread") { $0.contains("Bob: first from bob") }
        try alice.type("mine one")
        let mineOne = try #require(try bob.waitEvent("message") { $0.string("text") == "mine one" }.string("message"))
        let second = try #require(try bob.ok("send \(c) second from bob").string("message"))
        try alice.waitScreen("Bob's second") { $0.contains("Bob: second from bob") }
        try alice.type("mine two")
        try alice.waitScreen("all four") { $0.contains("You: mine two") && !$0.contains("sending") }

        try alice.key("C-s")
        try alice.waitScreen("select mode") { $0.contains("select: ↑↓ pick") }
        try alice.key("Up")
        try alice.key("Up")
        try alice.waitSettledScreen("still in select mode") { $0.contains("select: ↑↓ pick") }
        let picked = try attributedRow(alice, containing: "You: mine one")
        #expect(picked.contains("7m"), "the picked message in reverse video: \(picked.debugDescription)")
        #expect(!(try attributedRow(alice, containing: "You: mine two")).contains("7m"), "only the pick is reversed")
        try alice.type("e", enter: false)
        try alice.waitScreen("its text in the composer") { rows($0).last { $0.hasPrefix("> ") }?.hasPrefix("> /edit mine one") == true }
        try alice.type(" edited")
        try bob.waitEvent("message.edited") { $0.string("message") == mineOne && $0.string("text") == "mine one edited" }
        try alice.waitScreen("edited in place") { $0.contains("You: mine one edited (edited)") && $0.contains("You: mine two") }

        try alice.key("C-s")
        try alice.key("Up")
        try alice.waitSettledScreen("Bob's message picked") { $0.contains("select: ↑↓ pick") }
        try alice.type("e", enter: false)
        try alice.waitScreen("not hers to edit") { $0.contains("that is Bob's message: only your own can be edited") }
        try alice.type("r", enter: false)
        try alice.waitScreen("a reaction to type") { rows($0).last { $0.hasPrefix("> ") }?.hasPrefix("> /react") == true }
        try alice.type("👍")
        try bob.waitEvent("reaction") { $0.string("message") == second && $0.string("user") == "alice" && $0.string("emoji") == "👍" }
        let reacted = try alice.waitScreen("👍 under Bob's second") { screen in
            let lines = rows(screen)
            guard let index = lines.firstIndex(where: { $0.contains("Bob: second from bob") }), index + 1 < lines.count else { return false }
            return lines[index + 1].trimmingCharacters(in: .whitespaces) == "👍 1"
        }
        #expect(!rows(reacted).contains { $0.contains("mine one") && $0.contains("👍") }, "under the message it belongs to only")
        try bob.ok("react \(second) ❤")
        try alice.waitScreen("Bob's ❤ joins, live") { screen in
            let lines = rows(screen)
            guard let index = lines.firstIndex(where: { $0.contains("Bob: second from bob") }), index + 1 < lines.count else { return false }
            return lines[index + 1].trimmingCharacters(in: .whitespaces) == "👍 1  ❤ 1"
        }
        // A client started afterwards has them from the thread's history, in the order they were given.
        try alice.key("C-c")
        let later = try terminal(server, "alice")
        try later.type("/open 1")
        try later.waitScreen("the reactions from history") { screen in
            let lines = rows(screen)
            guard let index = lines.firstIndex(where: { $0.contains("Bob: second from bob") }), index + 1 < lines.count else { return false }
            return lines[index + 1].trimmingCharacters(in: .whitespaces) == "👍 1  ❤ 1"
        }
    }

    @Test("u on a picked message of mine asks first and unsends exactly it; Esc leaves select mode and /unsend acts on the newest again")
    func selectAndUnsend() throws {
        let server = try TestServer()
        let alice = try terminal(server, "alice")
        let bob = try server.client("bob")
        let c = try #require(try bob.ok("dm alice").string("conversation"))
        try bob.ok("send \(c) hello")
        try alice.type("/open 1")
        try alice.waitScreen("the thread") { $0.contains("Bob: hello") }
        try alice.type("older of mine")
        let older = try #require(try bob.waitEvent("message") { $0.string("text") == "older of mine" }.string("message"))
        try alice.type("newer of mine")
        let newer = try #require(try bob.waitEvent("message") { $0.string("text") == "newer of mine" }.string("message"))
        try alice.waitScreen("both stored") { $0.contains("You: newer of mine") && !$0.contains("sending") }
        try alice.key("C-s")
        try alice.key("Up")
        try alice.waitSettledScreen("select mode") { $0.contains("select: ↑↓ pick") }
        try alice.type("u", enter: false)
        try alice.waitScreen("asked first") { $0.contains("Unsend your message?") }
        try alice.type("y", enter: false)
        try bob.waitEvent("message.unsent") { $0.string("message") == older }
        try alice.waitScreen("the older one is a placeholder") { $0.contains("You unsent a message") && $0.contains("You: newer of mine") }
        try alice.key("C-s")
        try alice.waitScreen("select mode again") { $0.contains("select: ↑↓ pick") }
        try alice.key("Escape")
        try alice.waitScreen("select mode left") { !$0.contains("select: ↑↓ pick") }
        try alice.type("/unsend")
        try bob.waitEvent("message.unsent") { $0.string("message") == newer }
    }

    @Test("↑ at the top of the screen scrolls the thread, so the selection reaches a message that was not in sight; e on it says whose it is")
    func selectionScrollsToOlderMessages() throws {
        let server = try TestServer()
        let alice = try terminal(server, "alice")
        let bob = try server.client("bob")
        let c = try #require(try bob.ok("dm alice").string("conversation"))
        for n in 1...24 { try bob.ok("send \(c) line \(n) from bob") }
        try alice.type("/open 1")
        try alice.waitScreen("the newest") { $0.contains("Bob: line 24 from bob") && !$0.contains("Bob: line 1 from bob") }
        try alice.key("C-s")
        try alice.waitScreen("select mode") { $0.contains("select: ↑↓ pick") }
        // One key at a time, each after the frame it led to: a move within the screen, or a row scrolled at its top.
        var picked = ""
        for _ in 0..<60 {
            try alice.key("Up")
            try alice.waitSettledScreen("a frame after ↑") { _ in true }
            picked = try attributedRow(alice, containing: "Bob: line 1 from bob")
            if picked.contains("7m") { break }
        }
        #expect(picked.contains("7m"), "the first message, out of sight at first, is picked: \(picked.debugDescription)")
        try alice.type("e", enter: false)
        try alice.waitScreen("not hers") { $0.contains("that is Bob's message: only your own can be edited") }
    }
}
