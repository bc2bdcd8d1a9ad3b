import Foundation
import HeraldTestSupport
import Testing

/// client-script.md "Exit codes": 0 quit/EOF, 2 bad flags, 3 token refused, 4 server unreachable at start.
@Suite("herald exit codes", .serialized)
struct ExitCodeTests {
    @Test("exit 2: an unknown flag, a missing token, a bad server URL; one stderr line naming the cause", arguments: [
        ["--bogus"],
        ["--server", "ws://127.0.0.1:1", "--script"],
        ["--server", "http://127.0.0.1:1", "--token", "a.eyJzdWIiOiJhIn0.b", "--script"],
        ["--server", "ws://127.0.0.1:1", "--token", "a.eyJzdWIiOiJhIn0.b", "--viewport", "0", "--script"],
    ])
    func badFlags(_ arguments: [String]) throws {
        let client = try ClientProcess.launch(arguments)
        #expect(client.waitForExit() == 2)
        let errors = client.stderrLines.filter { !$0.isEmpty }
        #expect(errors.count == 1, "one line: \(errors)")
        #expect(errors.first?.hasPrefix("herald: error:") == true)
    }

    @Test("exit 4: nothing listens on the server's port at start")
    func unreachable() throws {
        let server = try TestServer()
        let token = try server.token("alice")
        let port = server.port
        server.kill()
        let client = try ClientProcess.start(port: port, token: token)
        #expect(client.waitForExit() == 4)
        #expect(client.stderrLines.first?.contains("cannot reach") == true)
    }

    @Test("--toast-duration-seconds 1e300 is clamped (T2) rather than trapping on the way to milliseconds: the client runs and exits 4")
    func hugeToastDurationDoesNotTrap() throws {
        let client = try ClientProcess.launch(["--server", "ws://127.0.0.1:1", "--token", "a.eyJzdWIiOiJhIn0.b", "--toast-duration-seconds", "1e300", "--script"])
        #expect(client.waitForExit() == 4)
    }

    @Test("--toast-duration-seconds outside 1-10 s is clamped as its help says (0 → 1 s, -5 → 1 s), not refused: the client runs and exits 4", arguments: ["0", "-5", "11"])
    func toastDurationIsClamped(_ value: String) throws {
        let client = try ClientProcess.launch(["--server", "ws://127.0.0.1:1", "--token", "a.eyJzdWIiOiJhIn0.b", "--toast-duration-seconds=\(value)", "--script"])
        #expect(client.waitForExit() == 4)
    }

    @Test("exit 3: a token that is not a Herald token at all is refused like any refused token, with the reason on one line")
    func notAHeraldToken() throws {
        let client = try ClientProcess.launch(["--server", "ws://127.0.0.1:1", "--token", "hunter2", "--script"])
        #expect(client.waitForExit() == 3)
        let errors = client.stderrLines.filter { !$0.isEmpty }
        #expect(errors.count == 1 && errors.first?.contains("not a Herald token") == true, "\(errors)")
    }

    @Test("--version: both programs say their release and protocol, and exit 0")
    func version() throws {
        for binary in [HeraldBinaries.client, HeraldBinaries.server] {
            let result = try runToCompletion(binary, ["--version"])
            #expect(result.status == 0)
            #expect(result.standardOutput.contains("0.7.0") && result.standardOutput.contains("herald.v1"), "\(result.standardOutput)")
        }
    }

    @Test("One version everywhere: GET /api/v1/health reports the release both binaries' --version say")
    func oneVersionEverywhere() throws {
        let server = try TestServer()
        let port = try #require(server.url.split(separator: ":").last)
        let health = try runToCompletion("/usr/bin/curl", ["-sS", "http://127.0.0.1:\(port)/api/v1/health"])
        let body = try #require(try JSONSerialization.jsonObject(with: Data(health.standardOutput.utf8)) as? [String: Any], "\(health.standardOutput)")
        let version = try #require(body["version"] as? String)
        for binary in [HeraldBinaries.client, HeraldBinaries.server] {
            let said = try runToCompletion(binary, ["--version"]).standardOutput
            #expect(said.split(separator: " ").dropFirst().first.map(String.init) == version, "\(binary): \(said) vs health \(version)")
        }
    }

    @Test("exit 3: the server refuses the token with 401")
    func refusedToken() throws {
        let server = try TestServer()
        // Well-formed but signed with another key.
        let forged = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJhbGljZSIsIm5hbWUiOiJBIiwiaWF0IjoxLCJleHAiOjk5OTk5OTk5OTl9.c2lnbmF0dXJl"
        let client = try ClientProcess.start(port: server.port, token: forged)
        #expect(client.waitForExit() == 3)
        #expect(client.stderrLines.first?.contains("401") == true)
    }

    /// Signed by python3's hmac with the secret "herald-test-secret"; it expired in 2025 (the server's SyncAuthTests
    /// check the same token).
    static let expiredToken = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJleHAiOjE3NjM4MDM2MDAsImlhdCI6MTc2MzgwMDAwMCwibmFtZSI6IkFsaWNlIiwic3ViIjoiYWxpY2UifQ.BYn0rfjdVOSMqn29tnP3pez15kIfcPGAhtmpnIbUXaA"

    /// The one stderr line of a client that exited 3.
    static func refusal(_ client: ClientProcess) -> String {
        let errors = client.stderrLines.filter { !$0.isEmpty }
        #expect(errors.count == 1, "one line: \(errors)")
        return errors.first ?? ""
    }

    @Test("exit 3: an expired token is refused, and the line says the server's reason (token expired)")
    func expiredTokenSaysWhy() throws {
        let server = try TestServer(arguments: ["--secret", "herald-test-secret"])
        let client = try ClientProcess.start(port: server.port, token: Self.expiredToken)
        #expect(client.waitForExit() == 3)
        let line = Self.refusal(client)
        #expect(line.hasPrefix("herald: error:") && line.contains("401") && line.contains("token expired"), "\(line)")
    }

    @Test("exit 3: a token for a user this server has never seen, minted on another database, is refused with the reason (not this server's signature)")
    func foreignUserTokenSaysWhy() throws {
        let server = try TestServer()
        let elsewhere = try TestServer()
        let carol = try elsewhere.token("carol")
        elsewhere.kill()
        let client = try ClientProcess.start(port: server.port, token: carol)
        #expect(client.waitForExit() == 3)
        let line = Self.refusal(client)
        #expect(line.hasPrefix("herald: error:") && line.contains("401") && line.contains("bad token signature")
                && line.contains("another database"), "\(line)")
    }

    @Test("exit 0 after quit and after end of input; HERALD_SERVER and HERALD_TOKEN stand in for the flags")
    func cleanExit() throws {
        let server = try TestServer()
        let alice = try server.client("alice")
        #expect(alice.quit() == 0)
        let env = try ClientProcess.launch(["--script"], environment: ["HERALD_SERVER": "ws://127.0.0.1:\(server.port)", "HERALD_TOKEN": try server.token("bob")])
        try env.waitEvent("connected")
        #expect(try env.state().string("user") == "bob")
        env.closeInput()
        #expect(env.waitForExit() == 0)
    }
}
