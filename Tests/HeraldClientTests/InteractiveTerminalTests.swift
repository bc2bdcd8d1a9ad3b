import Glibc
import Foundation
import Testing

/// A tmux server of our own (private socket) with one 80x24 window running a command.
final class TmuxSession {
    let socket = "herald-test-\(UUID().uuidString.prefix(8))"
    let tmux: String

    init(command: String) throws {
        tmux = ["/usr/bin/tmux", "/usr/local/bin/tmux"].first { FileManager.default.isExecutableFile(atPath: $0) } ?? "/usr/bin/tmux"
        try run(tmux, ["-L", socket, "-f", "/dev/null", "new-session", "-d", "-x", "80", "-y", "24", "-s", "main", command])
    }

    /// Types text (literally), then Enter when asked.
    func type(_ text: String, enter: Bool = true) throws {
        try run(tmux, ["-L", socket, "send-keys", "-t", "main", "-l", text])
        if enter { try run(tmux, ["-L", socket, "send-keys", "-t", "main", "Enter"]) }
    }

    func key(_ name: String) throws { try run(tmux, ["-L", socket, "send-keys", "-t", "main", name]) }

    /// The visible screen.
    func screen() throws -> String { try run(tmux, ["-L", socket, "capture-pane", "-p", "-t", "main"]).output }

    /// Waits until the screen satisfies `predicate`.
    @discardableResult
    func waitScreen(_ what: String, timeout: Double = 10, _ predicate: (String) -> Bool) throws -> String {
        let deadline = Date().addingTimeInterval(timeout)
        var last = ""
        while Date() < deadline {
            last = try screen()
            if predicate(last) { return last }
            usleep(50_000)
        }
        throw ClientHarnessError("screen never showed \(what); last screen:\n\(last)")
    }

    var isAlive: Bool { (try? run(tmux, ["-L", socket, "has-session", "-t", "main"]).status) == 0 }

    deinit { _ = try? run(tmux, ["-L", socket, "kill-server"]) }
}

@Suite("herald interactive terminal (tmux)", .serialized)
struct InteractiveTerminalTests {
    @Test("a toast, an unread badge and a thread view appear on screen; typed commands work; Ctrl-C leaves")
    func screen() throws {
        let server = try TestServer()
        let token = try server.token("alice")
        let bob = try server.client("bob")
        // The pane's shell runs herald; "; sleep" keeps the pane so the exit can be observed.
        let command = "\(ClientBinaries.client) --server ws://127.0.0.1:\(server.port) --token \(token) --toast-duration 10; echo EXITED $?; sleep 30"
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
