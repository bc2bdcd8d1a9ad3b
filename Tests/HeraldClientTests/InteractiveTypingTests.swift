import Foundation
import HeraldTestSupport
import Testing

/// E1 and E2 as a person sees them in the interactive client (tmux), against a real server and a script client.
@Suite("herald interactive terminal: typing and presence (tmux)", .serialized)
struct InteractiveTypingTests {
    @Test("E1, E2 on a real terminal: typing in the composer reaches the other person and stops on send; their typing shows under the thread and as the list row; the title shows their presence")
    func typingAndPresence() throws {
        let server = try TestServer()
        let bob = try server.client("bob")
        let token = try server.token("alice")
        let command = "\(HeraldBinaries.client) --server \(server.url) --token \(token); echo EXITED $?; sleep 30"
        let alice = try TmuxSession(command: command, columns: 80, rows: 24)
        try alice.waitScreen("alice online") { $0.contains("● online") }
        try alice.type("/dm bob")
        try alice.waitScreen("the thread with Bob, who is online") { $0.contains("No messages yet") && $0.contains("Bob · online") }
        let c = try #require(bob.waitEvent("conversation").string("conversation"))

        var mark = bob.mark
        try alice.type("hello th", enter: false)
        try bob.waitEvent("typing", after: mark) { $0.string("conversation") == c && ($0.array("users") as? [String]) == ["alice"] }
        mark = bob.mark
        try alice.type("ere")
        try bob.waitEvent("message", after: mark) { $0.string("text") == "hello there" }
        try bob.waitEvent("typing", after: mark) { ($0.array("users") as? [String]) == [] }

        try bob.ok("typing start \(c)")
        try alice.waitScreen("bob typing under the thread") { $0.contains("── Bob is typing…") }
        try alice.key("Escape")
        try alice.waitScreen("bob typing in the list row") { $0.contains("1. Bob") && $0.contains("typing…") }
        try bob.ok("background")
        try alice.key("Enter")
        try alice.waitScreen("bob away in the title") { $0.contains("Bob · away") }
        try alice.key("C-c")
        try alice.waitScreen("a clean exit") { $0.contains("EXITED 0") }
    }
}
