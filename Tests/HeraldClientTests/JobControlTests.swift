import Foundation
import HeraldTestSupport
import Testing

/// Job control through the real `herald` in tmux: a stop (Ctrl-Z or a SIGTSTP from outside) gives the shell back its
/// terminal as it left it (cooked, main screen), and a continue brings back raw mode, the alternate screen and the
/// whole screen, with keys working.
@Suite("herald job control (tmux)", .serialized)
struct JobControlTests {
    /// The line modes a shell needs, as `stty -a` names them (a leading `-` means off, so it never matches).
    private static let cookedCheck = "stty -a | tr ' ;' '\\n\\n' | grep -x -e icanon -e echo -e isig | sort | tr '\\n' , ; echo"
    private static let cooked = "echo,icanon,isig,"

    private func alternateScreen(_ tmux: TmuxSession) throws -> Bool { try tmux.display("#{alternate_on}") == "1" }

    private func waitShell(_ tmux: TmuxSession, _ what: String) throws -> String {
        let deadline = ContinuousClock.now + .seconds(10)
        while ContinuousClock.now < deadline, try alternateScreen(tmux) { usleep(50_000) }
        #expect(try !alternateScreen(tmux), "the alternate screen is left when stopped (\(what))")
        return try tmux.waitScreen("the shell's prompt after the stop (\(what))") { $0.contains("Stopped") && $0.contains("SHELL$") }
    }

    private func waitRedrawn(_ tmux: TmuxSession, _ what: String) throws {
        try tmux.waitScreen("the client's whole screen again (\(what))") {
            $0.hasPrefix("Herald · alice") && $0.contains("● online") && !$0.contains("SHELL$") && !$0.contains("Stopped")
        }
        #expect(try alternateScreen(tmux), "back on the alternate screen (\(what))")
    }

    @Test("Ctrl-Z and SIGTSTP from outside stop the client with the terminal cooked and the main screen back; fg redraws it whole and keys work")
    func suspendAndResumeInShell() throws {
        let server = try TestServer()
        let token = try server.token("alice", name: "Alice")
        _ = try server.token("bob", name: "Bob")
        let tmux = try TmuxSession(command: "env PS1='SHELL$ ' bash --norc --noprofile -i")
        try tmux.waitScreen("the shell") { $0.contains("SHELL$") }
        try tmux.type("\(HeraldBinaries.client) --server \(server.url) --token \(token)")
        try tmux.waitScreen("alice online") { $0.contains("● online") }

        try tmux.key("C-z")
        _ = try waitShell(tmux, "Ctrl-Z")
        try tmux.type(Self.cookedCheck)
        try tmux.waitScreen("cooked mode while stopped (Ctrl-Z)") { $0.split(separator: "\n").contains { $0 == Self.cooked } }
        try tmux.type("echo PID=$(jobs -p)")
        let listed = try tmux.waitScreen("the job's pid") { $0.range(of: #"\nPID=\d+"#, options: .regularExpression) != nil }
        let pidText = try #require(listed.split(separator: "\n").last { $0.hasPrefix("PID=") }).dropFirst(4)
        let pid = try #require(pid_t(pidText))
        try tmux.type("fg")
        try waitRedrawn(tmux, "fg after Ctrl-Z")
        try tmux.type("/dm bob")
        try tmux.waitScreen("keys work after fg: the thread with Bob") { $0.contains("No messages yet") }

        try tmux.type("kept draft", enter: false)  // a draft, kept across the stop
        #expect(kill(pid, SIGTSTP) == 0)
        _ = try waitShell(tmux, "SIGTSTP from outside")
        try tmux.type("clear; " + Self.cookedCheck)
        try tmux.waitScreen("cooked mode while stopped (SIGTSTP)") { $0.split(separator: "\n").contains { $0 == Self.cooked } }
        try tmux.type("fg")
        try waitRedrawn(tmux, "fg after SIGTSTP")
        try tmux.waitScreen("the draft is still in the composer") { $0.contains("> kept draft") }
        try tmux.key("C-u")
        try tmux.type("after the stop")
        try tmux.waitScreen("a message sent after fg") { $0.contains("You: after the stop") }
    }

    @Test("SIGSTOP, a terminal reset, then SIGCONT: the continue puts raw mode and the alternate screen back and redraws whole")
    func continueRedraws() throws {
        let server = try TestServer()
        let token = try server.token("alice", name: "Alice")
        let tmux = try TmuxSession(command: "exec \(HeraldBinaries.client) --server \(server.url) --token \(token)")
        try tmux.waitScreen("alice online") { $0.contains("● online") }
        let pid = try #require(pid_t(try tmux.display("#{pane_pid}")))
        // tmux itself continues a pane's process that stops (only a job-control shell keeps one stopped), so the
        // stop may be short; the reset below is what the continue has to repair, whenever it comes.
        #expect(kill(pid, SIGSTOP) == 0)
        // The terminal reset (tmux has done it when the command returns): main screen, modes and screen gone.
        try tmux.key("-R")
        #expect(kill(pid, SIGCONT) == 0)
        try tmux.waitScreen("the client's whole screen again") { $0.hasPrefix("Herald · alice") && $0.contains("● online") }
        #expect(try alternateScreen(tmux), "back on the alternate screen")
        try tmux.type("/help")
        try tmux.waitScreen("keys work after the continue") { $0.contains("Commands start with /") }
    }
}
