import Foundation
import HeraldTestSupport
import Testing

/// `/search <words>` in the interactive client (tmux, real binaries): the server's hits over the whole history, and
/// n/N jump the thread to each one, loading older history until it is on screen.
@Suite("herald interactive terminal: search within a conversation (tmux)", .serialized)
struct InteractiveSearchTests {
    /// Whether a row of the thread (not the search's notice line, which names the hit too) shows `text`.
    private func threadShows(_ text: String, in screen: String) -> Bool {
        screen.split(separator: "\n").contains { $0.contains(text) && !$0.contains("search \u{201C}") }
    }

    @Test("/search shows the newest hit; n jumps to an older one far above the loaded page, N back; Esc ends the search")
    func searchAndJump() throws {
        let server = try TestServer(arguments: ["--sync-send-rate", "0"])
        let token = try server.token("alice", name: "Alice")
        let bob = try server.client("bob")
        let dm = try #require(try bob.ok("dm alice").string("conversation"))
        _ = try bob.ok("send \(dm) the zeppelin lands on Friday")
        // More than the page a thread loads when opened: the oldest hit is not loaded until the jump asks for it.
        for index in 0..<120 { _ = try bob.ok("send \(dm) ticket \(index) is open") }
        _ = try bob.ok("send \(dm) zeppelin café at noon")

        let alice = try TmuxSession(
            command: "\(HeraldBinaries.client) --server \(server.url) --token \(token); echo EXITED $?; sleep 30", columns: 80, rows: 24)
        try alice.waitScreen("online") { $0.contains("● online") }
        try alice.type("/open 1")
        try alice.waitScreen("the thread at its newest") { $0.contains("zeppelin café at noon") }
        #expect(try !threadShows("zeppelin lands on Friday", in: alice.screen()))

        try alice.type("/search ZEPP")
        try alice.waitScreen("the newest hit") { $0.contains("1/2 (newest)") && threadShows("zeppelin café at noon", in: $0) }
        try alice.type("n", enter: false)
        let oldest = try alice.waitScreen("the oldest hit in the thread") { screen in
            screen.contains("2/2 (oldest)") && threadShows("zeppelin lands on Friday", in: screen)
        }
        #expect(!oldest.contains("ticket 119"), "the thread scrolled away from the bottom:\n\(oldest)")
        try alice.type("N", enter: false)
        try alice.waitScreen("back to the newest hit") { $0.contains("1/2 (newest)") && threadShows("zeppelin café at noon", in: $0) }
        try alice.key("Escape")
        try alice.waitScreen("the search ended") { !$0.contains("1/2") }
        try alice.type("n", enter: false)
        try alice.waitScreen("n is typed again") { $0.contains("> n") }
    }
}
