import Foundation
import HeraldTestSupport
import Testing

/// The interactive client does not give up on a person: a server that is down at start is waited for, and sends the
/// server refuses as `rate_limited` are paced and retried, never lost. Through the real binaries in tmux.
@Suite("herald interactive resilience (tmux)", .serialized)
struct InteractiveResilienceTests {
    @Test("Server down at start: the interactive client shows it is offline and retrying, and connects once the server is up")
    func waitsForServerAtStart() throws {
        let server = try TestServer()
        let token = try server.token("alice", name: "Alice")
        server.kill()
        let tmux = try TmuxSession(command: "\(HeraldBinaries.client) --server \(server.url) --token \(token); echo EXITED $?; sleep 30")
        try tmux.waitScreen("offline and retrying in the status line") {
            $0.contains("○ offline") && $0.contains("waiting for the server") && $0.contains("Herald · alice")
        }
        #expect(try !tmux.screen().contains("EXITED"), "the client did not exit")
        try server.restart()
        try tmux.waitScreen("online once the server is up", timeout: .seconds(20)) { $0.contains("● online") }
    }

    @Test("Script mode keeps its contract: the server down at start is exit 4")
    func scriptStillExitsWhenUnreachable() throws {
        let server = try TestServer()
        let token = try server.token("alice", name: "Alice")
        server.kill()
        let client = try ClientProcess.launch(["--server", server.url, "--token", token, "--script"])
        #expect(client.waitForExit() == 4)
    }

    @Test("Sends refused as rate_limited are paced and retried: a burst typed fast all arrives, each exactly once")
    func rateLimitedSendsArePaced() throws {
        // 2 sends per second, a burst of 4: twelve messages typed at once are mostly refused at first.
        let server = try TestServer(arguments: ["--sync-send-rate", "2"])
        let token = try server.token("alice", name: "Alice")
        let bob = try server.client("bob")
        let tmux = try TmuxSession(command: "\(HeraldBinaries.client) --server \(server.url) --token \(token); echo EXITED $?; sleep 30")
        try tmux.waitScreen("alice online") { $0.contains("● online") }
        try tmux.type("/dm bob")
        try tmux.waitScreen("the thread with Bob") { $0.contains("No messages yet") }
        let texts = (1...12).map { "burst-\($0)" }
        try tmux.keys(texts.flatMap { [$0, "Enter"] })
        let received = try bob.wait("all twelve messages at Bob", timeout: .seconds(30)) { _ -> [String]? in
            let got = bob.events("message").compactMap { $0.string("text") }.filter { $0.hasPrefix("burst-") }
            return Set(got).count == texts.count ? got : nil
        }
        #expect(received.count == texts.count, "each message exactly once: \(received)")
        try tmux.waitScreen("nothing left waiting on alice's screen") { !$0.contains("(sending…)") && !$0.contains("waiting to send") }
    }
}
