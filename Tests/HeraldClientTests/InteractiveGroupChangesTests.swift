import Foundation
import HeraldTestSupport
import Testing

/// G1-G5 as a person sees them in the interactive client (tmux), against a real server and script clients.
@Suite("herald interactive terminal: changing a group (tmux)", .serialized)
struct InteractiveGroupChangesTests {
    @Test("G1-G5 on a real terminal: /rename, /add and /remove (asked first) change the open group; every change, and a member leaving, shows as a notice line, never as someone's message")
    func renameAddRemove() throws {
        let server = try TestServer()
        let bob = try server.client("bob")
        let carol = try server.client("carol")
        let token = try server.token("alice")
        let command = "\(HeraldBinaries.client) --server \(server.url) --token \(token); echo EXITED $?; sleep 30"
        let alice = try TmuxSession(command: command, columns: 80, rows: 24)
        try alice.waitScreen("alice online") { $0.contains("● online") }
        try alice.type("/group Team bob")
        let g = try #require(bob.waitEvent("conversation").string("conversation"))
        try alice.waitScreen("the new group's thread") { $0.contains("Team") && $0.contains("No messages yet") }

        try alice.type("/rename Team B")
        try alice.waitScreen("the rename as a notice, and the new title") { $0.contains("-- Alice renamed the group to Team B --") }
        try bob.waitEvent("message") { $0.string("kind") == "system" && $0.string("text") == "Alice renamed the group to Team B" }

        try alice.type("/add carol")
        try alice.waitScreen("the add as a notice") { $0.contains("-- Alice added Carol --") }
        try carol.waitEvent("conversation") { $0.string("conversation") == g && $0.string("title") == "Team B" }
        try carol.ok("send \(g) hi from carol")
        try alice.waitScreen("carol's message as a message") { $0.contains("Carol: hi from carol") }

        try alice.type("/remove carol")
        try alice.waitScreen("asked first") { $0.contains("Remove carol from Team B? (y/N)") }
        try alice.type("y")
        try alice.waitScreen("the removal as a notice") { $0.contains("-- Alice removed Carol --") }
        try carol.waitEvent("left") { $0.string("conversation") == g && $0.string("user") == "carol" }

        try bob.ok("leave \(g)")
        let screen = try alice.waitScreen("bob leaving as a notice") { $0.contains("-- Bob left --") }
        #expect(!screen.contains("Alice: Alice"), "a notice never reads as a message of its actor:\n\(screen)")
        #expect(!screen.contains("Bob: Bob left"))
        try alice.key("C-c")
        try alice.waitScreen("a clean exit") { $0.contains("EXITED 0") }
    }
}
