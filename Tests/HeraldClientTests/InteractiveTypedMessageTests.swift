import Foundation
import HeraldTestSupport
import Testing

/// A message typed at the terminal is sent as typed: it is never read as a script command (tmux, real binaries).
@Suite("herald interactive terminal: typed messages go out as typed (tmux)", .serialized)
struct InteractiveTypedMessageTests {
    @Test("Quotes, backslashes and slashes after the text are the message's own: an unmatched quote is not an 'unterminated quote'")
    func quotesAndBackslashesAreText() throws {
        let server = try TestServer()
        let token = try server.token("alice", name: "Alice")
        let alice = try TmuxSession(
            command: "\(HeraldBinaries.client) --server \(server.url) --token \(token); echo EXITED $?; sleep 30", columns: 100, rows: 24)
        try alice.waitScreen("online") { $0.contains("● online") }
        let bob = try server.client("bob")
        _ = try #require(try bob.ok("dm alice").string("conversation"))
        try alice.waitScreen("Bob's row") { $0.contains("1. Bob") }
        try alice.type("/open 1")
        try alice.waitScreen("the thread") { $0.contains("No messages yet") }

        let texts = [#"she said "hi"#, #"a \"quoted\" \\ path C:\temp"#, #"//not a command, and "half"#, "tail /sign-out all"]
        for text in texts {
            try alice.type(text)
            // `//` at the start sends the line without its first slash.
            let sent = text.hasPrefix("//") ? String(text.dropFirst()) : text
            try bob.waitEvent("message") { $0.string("text") == sent }
        }
        let screen = try alice.screen()
        #expect(!screen.contains("unterminated"), "no parse error shown:\n\(screen)")
    }
}
