import Foundation

/// A real `herald-server` on an ephemeral loopback port with its own temporary database.
///
/// It can be stopped gracefully, killed with SIGKILL, and started again on the same database and port,
/// which is how the restart and crash scenarios are driven.
final class ServerProcess: @unchecked Sendable {
    let directory: TemporaryDirectory
    let dbPath: String
    private(set) var port: Int = 0
    private var process: Process?
    private var output: LineCollector?
    private let extraArguments: [String]

    /// Starts the server. `pushGrace` is P4's grace period in seconds (0 by default so tests need no waits).
    init(pushGrace: Double = 0, extraArguments: [String] = []) throws {
        directory = try TemporaryDirectory()
        dbPath = directory.url.appendingPathComponent("herald.db").path
        self.extraArguments = ["--push-grace", String(pushGrace)] + extraArguments
        try start(port: 0)
    }

    /// The `ws://` URL clients connect to.
    var url: String { "ws://127.0.0.1:\(port)" }

    /// Starts the binary and waits for its `listening on` line, which names the bound port.
    func start(port requested: Int) throws {
        let process = Process()
        process.executableURL = Binaries.server
        process.arguments = ["serve", "--host", "127.0.0.1", "--port", String(requested), "--db", dbPath] + extraArguments
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let collector = LineCollector(out.fileHandleForReading)
        self.process = process
        output = collector
        port = try collector.wait(timeout: .seconds(20), what: "herald-server listening line") { lines in
            lines.lazy.compactMap { line -> Int? in
                guard line.contains("listening on"), let colon = line.lastIndex(of: ":") else { return nil }
                return Int(line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
            }.first
        }
    }

    /// Prints a token for `user`, creating the user (`herald-server token`), while the server runs.
    func token(_ user: String, name: String? = nil) throws -> String {
        var arguments = ["token", user, "--db", dbPath]
        if let name { arguments += ["--name", name] }
        let result = try runToCompletion(Binaries.server, arguments)
        guard result.status == 0 else { throw HarnessError("token \(user) failed: \(result.stderr)") }
        return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// SIGTERM and wait: the graceful path (close 1001 to everyone, exit 0). Returns the exit status.
    @discardableResult
    func stop() -> Int32 {
        guard let process, process.isRunning else { return process?.terminationStatus ?? 0 }
        process.terminate()
        process.waitUntilExit()
        return process.terminationStatus
    }

    /// SIGKILL: the crash path. Nothing gets to flush.
    func kill() {
        guard let process, process.isRunning else { return }
        Foundation.kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    /// Starts again on the same database and the same port, so connected clients can reconnect.
    func restart() throws {
        try start(port: port)
    }

    deinit {
        if let process, process.isRunning {
            Foundation.kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }
}
