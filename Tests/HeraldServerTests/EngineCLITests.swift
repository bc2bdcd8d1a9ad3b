import Foundation
import HeraldServer
import HeraldTestSupport
import Testing

/// `herald-server` as a user runs it: the built binary, its help, flags and HERALD_* variables.
@Suite("Engine: herald-server command line")
struct EngineCLITests {
    /// Runs the binary with `arguments` and returns its exit status and combined output.
    static func run(_ arguments: [String], environment: [String: String] = [:]) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: ServerHarness.binaryPath())
        process.arguments = arguments
        var env = ProcessInfo.processInfo.environment
        for (name, value) in environment { env[name] = value }
        process.environment = env
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, output)
    }

    @Test("`serve --help` lists every option with its HERALD_* variable; serve is the default subcommand")
    func helpListsEveryOption() throws {
        let (status, help) = try Self.run(["serve", "--help"])
        #expect(status == 0)
        for flag in ["--host", "--port", "--threads", "--bench-endpoints", "--db", "--secret", "--secret-file", "--push-grace-seconds", "--handshake-timeout-ms",
                     "--ping-interval-ms", "--idle-timeout-ms", "--tick-ms", "--max-frame-bytes", "--max-message-bytes", "--max-connections", "--log-level"] {
            #expect(help.contains(flag), "missing \(flag)")
            let variable = "HERALD_" + flag.dropFirst(2).uppercased().replacingOccurrences(of: "-", with: "_")
            #expect(help.contains(variable), "missing \(variable)")
        }
        let (_, rootHelp) = try Self.run(["--help"])
        #expect(rootHelp.contains("serve (default)") && rootHelp.contains("token"))
    }

    @Test("`herald-server --help` lists every setting of serve (the default command) beside the subcommands")
    func rootHelpListsEverySetting() throws {
        let (status, help) = try Self.run(["--help"])
        #expect(status == 0)
        for setting in HeraldServerOptions.settings {
            #expect(help.contains(setting.flag), "missing \(setting.flag)")
        }
        for text in ["--port", "--push-grace-seconds", "HERALD_PUSH_GRACE_SECONDS", "serve (default)", "token", "apikey"] {
            #expect(help.contains(text), "missing \(text)")
        }
    }

    @Test("token and apikey refuse a SQLite database that does not exist (only serve creates one): exit ≠ 0, one line naming the absolute path, no file made", arguments: [
        ["token", "alice"], ["apikey", "create"], ["apikey", "list"],
    ])
    func storeCommandsNeedAnExistingDatabase(_ command: [String]) throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("herald-nodb-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        // Run in that directory without --db: ./herald.db is the database looked for.
        var environment = ProcessInfo.processInfo.environment
        for name in ["HERALD_DB", "HERALD_STORE", "HERALD_SECRET", "HERALD_SECRET_FILE"] { environment[name] = nil }
        let result = try runToCompletion("/bin/sh", ["-c", "cd \"$0\" && exec \"$@\"", directory.path, ServerHarness.binaryPath()] + command,
                                         environment: environment, timeout: .seconds(30))
        let expected = directory.appendingPathComponent("herald.db").standardizedFileURL.path
        let lines = result.standardError.split(separator: "\n").filter { !$0.isEmpty }
        #expect(result.status != 0 && result.status < 128, "exit \(result.status)")
        #expect(lines.count == 1 && lines[0].contains("no database at \(expected)") && lines[0].contains("--db"), "\(result.standardError)")
        #expect(result.standardOutput.isEmpty)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty, "nothing was created")

        // Once serve made the database there, the same command works.
        let server = try ServerHarness.start(["--db", directory.appendingPathComponent("herald.db").path])
        defer { server.stop() }
        let again = try runToCompletion("/bin/sh", ["-c", "cd \"$0\" && exec \"$@\"", directory.path, ServerHarness.binaryPath()] + command,
                                        environment: environment, timeout: .seconds(30))
        #expect(again.status == 0, "\(again.standardError)")
    }

    @Test("HERALD_BENCH_ENDPOINTS=true enables /echo without the flag; --no-bench-endpoints on the command line wins over it")
    func environmentFallback() throws {
        let server = try ServerHarness.start([], environment: ["HERALD_BENCH_ENDPOINTS": "true"])
        defer { server.stop() }
        let client = try RawWebSocketClient.connect(port: server.port, path: "/echo")
        try client.sendText("from env")
        #expect(try client.readMessage().text == "from env")

        let flagWins = try ServerHarness.start(["--no-bench-endpoints"], environment: ["HERALD_BENCH_ENDPOINTS": "true"])
        defer { flagWins.stop() }
        let refused = try RawWebSocketClient(port: flagWins.port)
        try refused.send(RawWebSocketClient.upgradeRequest(path: "/echo").bytes)
        #expect(try refused.readHTTPResponse().status == 404)
    }

    @Test("A product server (no --bench-endpoints) serves neither /echo nor the broadcast endpoint; the old per-endpoint flags are refused")
    func benchEndpointsAreOffByDefault() throws {
        let server = try ServerHarness.start()
        defer { server.stop() }
        for path in ["/echo", "/bench-broadcast"] {
            let refused = try RawWebSocketClient(port: server.port)
            try refused.send(RawWebSocketClient.upgradeRequest(path: path).bytes)
            #expect(try refused.readHTTPResponse().status == 404, "\(path)")
        }
        for removed in ["--echo", "--broadcast"] {
            // A database in a missing folder: were the flag accepted, the server would stop on the database instead,
            // and its message would not name the flag.
            let (status, output) = try Self.run(["serve", removed, "--port", "0", "--db", "/nonexistent-herald-dir/herald.db"])
            #expect(status != 0 && output.contains(removed), "\(removed): \(output)")
        }
    }

    @Test("A second herald-server on a port a server already listens on is refused with a clear error, not started beside it")
    func portInUseIsRefused() throws {
        let first = try ServerHarness.start(["--bench-endpoints"])
        defer { first.stop() }
        let db = FileManager.default.temporaryDirectory.appendingPathComponent("herald-port-\(UUID().uuidString).db").path
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: db + suffix) } }
        let (status, output) = try Self.run(["serve", "--port", "\(first.port)", "--db", db])
        #expect(status != 0)
        #expect(output.contains("127.0.0.1:\(first.port)") && output.contains("Address already in use"), "\(output)")
        // The first server still answers alone.
        let client = try RawWebSocketClient.connect(port: first.port, path: "/echo")
        try client.sendText("still here")
        #expect(try client.readMessage().text == "still here")
    }

    @Test("An unparsable HERALD_* value or flag stops the server at start with a non-zero status and names the variable")
    func badValuesAreRefused() throws {
        let (status, output) = try Self.run(["serve", "--port", "0"], environment: ["HERALD_IDLE_TIMEOUT_MS": "soon"])
        #expect(status != 0)
        #expect(output.contains("HERALD_IDLE_TIMEOUT_MS"))
        let (tickStatus, _) = try Self.run(["serve", "--port", "0", "--tick-ms", "0"])
        #expect(tickStatus != 0)
    }

    @Test("Values that used to trap (--port=-1, --push-grace-seconds inf, --api-rate-limit inf or 1e300) exit 64 with a message, not a signal")
    func trappingValuesAreRefused() throws {
        // A database path of its own, so a regression that gets as far as opening the store leaves nothing behind here.
        let db = ["--db", FileManager.default.temporaryDirectory.appendingPathComponent("review-\(getpid()).db").path]
        for arguments in [["--port=-1"], ["--port", "0", "--push-grace-seconds", "inf"], ["--port", "0", "--api-rate-limit", "inf"]] {
            let (status, output) = try Self.run(["serve"] + db + arguments)
            #expect(status == 64, "\(arguments): \(output)")
        }
        let (status, output) = try Self.run(["serve", "--port", "0"] + db, environment: ["HERALD_API_RATE_LIMIT": "inf"])
        #expect(status == 64 && output.contains("HERALD_API_RATE_LIMIT"), "\(output)")
        // Finite but huge: accepted, and the server starts (the burst is capped rather than converted with a trap).
        let server = try ServerHarness.start(["--api-rate-limit", "1e300"])
        server.stop()
    }
}
