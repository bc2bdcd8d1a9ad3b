import Foundation
import HeraldTestSupport
import Testing

@Suite("herald interactive terminal (tmux)", .serialized)
struct InteractiveTerminalTests {
    @Test("a toast, an unread badge and a thread view appear on screen; typed commands work; Ctrl-C leaves")
    func screen() throws {
        let server = try TestServer()
        let token = try server.token("alice")
        let bob = try server.client("bob")
        // The pane's shell runs herald; "; sleep" keeps the pane so the exit can be observed.
        let command = "\(HeraldBinaries.client) --server ws://127.0.0.1:\(server.port) --token \(token) --toast-duration 10; echo EXITED $?; sleep 30"
        let tmux = try TmuxSession(command: command)
        try tmux.waitScreen("the list, online") { $0.contains("Messages") && $0.contains("online") }
        let c = try #require(try bob.ok("dm alice").string("conversation"))
        try bob.ok("send \(c) hello from bob")
        let toast = try tmux.waitScreen("the toast banner and the unread badge") { $0.contains("[info] Bob") && $0.contains("hello from bob") && $0.contains("[1]") }
        #expect(toast.contains("Messages (1)"))
        #expect(toast.split(separator: "\n").allSatisfy { $0.count <= 80 })
        try tmux.type("open thread \(c)")
        let thread = try tmux.waitScreen("the thread view") { $0.contains("Thread \(c)") && $0.contains("Bob: hello from bob") }
        #expect(!thread.contains("[info] Bob"), "T8: no toast about the thread being viewed")
        try tmux.waitScreen("badge cleared") { !$0.contains("Messages (1)") }
        try tmux.type("send \(c) hi bob")
        try bob.waitEvent("message") { $0.string("text") == "hi bob" }
        try tmux.key("C-c")
        let exited = try tmux.waitScreen("a clean exit with the terminal restored") { $0.contains("EXITED 0") }
        #expect(!exited.contains("Thread \(c)"), "the alternate screen is left")
    }
}
