import Foundation
import Glibc

/// Runs the built `herald-server` binary for a test: on an ephemeral loopback port with a temporary database.
///
/// It builds nothing. The binary is `$HERALD_BIN_DIR/herald-server` when that variable is set, otherwise
/// `<package>/.build/debug/herald-server` (found from this file's `#filePath`), i.e. what `swift build` made.
/// `start` returns once the server printed `herald-server listening on 127.0.0.1:<port>`, so the port is live.
///
/// ```swift
/// let server = try ServerHarness.start(["--bench-endpoints"])
/// defer { server.stop() }
/// let client = try RawWebSocketClient.connect(port: server.port, path: "/echo")
/// ```
public final class ServerHarness: @unchecked Sendable {
    // @unchecked: every stored property is set in `init` and immutable, except the Process, whose methods are
    // thread-safe, and `stdoutText`, guarded by `lock`.

    /// The port the server reported it listens on.
    public let port: Int
    /// The server's process id.
    public let pid: Int32
    /// The temporary directory holding the database and the server's stderr log.
    public let directory: URL
    /// The database file passed with `--db`.
    public let databasePath: String

    private let process: Process
    private let stderrURL: URL
    private let lock = NSLock()
    private var stdoutBytes: [UInt8] = []

    /// Where the server binary is expected (see ``HeraldBinaries``); `filePath` is a file in Tests/HeraldTestSupport.
    public static func binaryPath(filePath: String = #filePath) -> String {
        HeraldBinaries.locate(fromSupportFile: filePath).appendingPathComponent("herald-server").path
    }

    /// A token from `herald-server token <user> --name <User> --store <url>` (creates the user in the shared
    /// PostgreSQL store): the CLI path of a multi-node deployment.
    public static func token(_ user: String, store url: String) throws -> String {
        let display = user.prefix(1).uppercased() + user.dropFirst()
        let result = try runToCompletion(binaryPath(), ["token", user, "--name", display, "--store", url], timeout: .seconds(30))
        let token = result.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
        guard result.status == 0, !token.isEmpty else {
            throw ProcessHarnessError("token \(user) --store failed with \(result.status): \(result.standardError)")
        }
        return token
    }

    /// Starts `herald-server serve --host 127.0.0.1 --port 0 --db <temp>` plus `arguments`.
    ///
    /// - Parameters:
    ///   - arguments: extra flags, e.g. `["--bench-endpoints", "--handshake-timeout-ms", "300"]`.
    ///   - environment: extra environment variables for the server (HERALD_* settings).
    ///   - startupTimeoutMilliseconds: how long to wait for the listening line.
    ///   - fileCreationMask: the server's umask (e.g. "000"), set by `/bin/sh` before it execs the binary (same pid);
    ///     nil inherits the test process's.
    ///   - standardErrorThroughPipe: the server writes its log into a pipe that this process copies to the log file,
    ///     so limits set on the server's own file writes (RLIMIT_FSIZE, to fake a full disk) do not stop its log.
    public static func start(_ arguments: [String] = [], environment: [String: String] = [:],
                             startupTimeoutMilliseconds: Int = 10_000, fileCreationMask: String? = nil,
                             standardErrorThroughPipe: Bool = false) throws -> ServerHarness {
        try ServerHarness(arguments: arguments, environment: environment, startupTimeoutMilliseconds: startupTimeoutMilliseconds,
                          fileCreationMask: fileCreationMask, standardErrorThroughPipe: standardErrorThroughPipe)
    }

    private init(arguments: [String], environment: [String: String], startupTimeoutMilliseconds: Int, fileCreationMask: String?,
                 standardErrorThroughPipe: Bool) throws {
        let binary = Self.binaryPath()
        guard FileManager.default.isExecutableFile(atPath: binary) else {
            throw HarnessError.binaryMissing(binary)
        }
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("herald-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        databasePath = directory.appendingPathComponent("herald.db").path
        stderrURL = directory.appendingPathComponent("stderr.log")
        _ = FileManager.default.createFile(atPath: stderrURL.path, contents: nil)

        let process = Process()
        let serverArguments = ["serve", "--host", "127.0.0.1", "--port", "0", "--db", databasePath] + arguments
        if let fileCreationMask {
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            process.arguments = ["-c", "umask \(fileCreationMask) && exec \"$0\" \"$@\"", binary] + serverArguments
        } else {
            process.executableURL = URL(fileURLWithPath: binary)
            process.arguments = serverArguments
        }
        var env = ProcessInfo.processInfo.environment
        for (name, value) in environment { env[name] = value }
        process.environment = env
        let stdout = Pipe()
        process.standardOutput = stdout
        let log = try FileHandle(forWritingTo: stderrURL)
        if standardErrorThroughPipe {
            let pipe = Pipe()
            process.standardError = pipe
            let reading = pipe.fileHandleForReading
            // Ends at EOF, when the server exits.
            Thread.detachNewThread {
                while true {
                    let data = reading.availableData
                    if data.isEmpty { return }
                    log.write(data)
                }
            }
        } else {
            process.standardError = log
        }
        process.standardInput = FileHandle.nullDevice
        try process.run()
        self.process = process
        self.pid = process.processIdentifier

        // Read stdout until the listening line, with a deadline; then keep draining it on a thread so the
        // server never blocks on a full pipe.
        let readFD = stdout.fileHandleForReading.fileDescriptor
        let deadline = RawWebSocketClient.deadline(after: startupTimeoutMilliseconds)
        var collected: [UInt8] = []
        var found: Int?
        while found == nil {
            let remaining = deadline - RawWebSocketClient.nowMilliseconds()
            var pollfd = Glibc.pollfd(fd: readFD, events: Int16(POLLIN), revents: 0)
            if remaining <= 0 || poll(&pollfd, 1, Int32(remaining)) == 0 {
                process.terminate()
                throw HarnessError.notListening(output: String(decoding: collected, as: UTF8.self), log: Self.read(stderrURL))
            }
            var chunk = [UInt8](repeating: 0, count: 4096)
            let count = chunk.withUnsafeMutableBytes { Glibc.read(readFD, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            if count <= 0 {
                process.waitUntilExit()
                throw HarnessError.exitedEarly(status: process.terminationStatus, output: String(decoding: collected, as: UTF8.self),
                                               log: Self.read(stderrURL))
            }
            collected += chunk[0..<count]
            found = Self.listeningPort(in: String(decoding: collected, as: UTF8.self))
        }
        port = found ?? 0
        stdoutBytes = collected
        let handle = stdout.fileHandleForReading
        Thread.detachNewThread { [weak self] in
            while true {
                let data = handle.availableData
                if data.isEmpty { return }
                guard let self else { continue }
                self.lock.lock()
                self.stdoutBytes += data
                self.lock.unlock()
            }
        }
    }

    deinit {
        if process.isRunning { kill(pid, SIGKILL) }
        try? FileManager.default.removeItem(at: directory)
    }

    /// The port in a `herald-server listening on 127.0.0.1:<port>` line, once a whole line has arrived.
    static func listeningPort(in output: String) -> Int? {
        for line in output.split(separator: "\n", omittingEmptySubsequences: false).dropLast() {
            let prefix = "herald-server listening on "
            guard line.hasPrefix(prefix), let colon = line.lastIndex(of: ":") else { continue }
            return Int(line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        return nil
    }

    private static func read(_ url: URL) -> String {
        (try? String(contentsOf: url, encoding: .utf8)) ?? ""
    }

    /// Everything the server wrote to stdout so far.
    public var standardOutput: String {
        lock.lock()
        defer { lock.unlock() }
        return String(decoding: stdoutBytes, as: UTF8.self)
    }

    /// Everything the server wrote to stderr (its log) so far.
    public var standardError: String { Self.read(stderrURL) }

    /// Whether the server process is still running.
    public var isRunning: Bool { process.isRunning }

    /// Sends `signal` (e.g. SIGTERM) to the server.
    public func send(signal: Int32) { kill(pid, signal) }

    /// Waits for the server to exit; returns its exit status, or nil if it is still running at the deadline.
    public func waitForExit(timeoutMilliseconds: Int) -> Int32? {
        let deadline = RawWebSocketClient.deadline(after: timeoutMilliseconds)
        while process.isRunning {
            if RawWebSocketClient.nowMilliseconds() >= deadline { return nil }
            usleep(10_000)
        }
        return process.terminationStatus
    }

    /// Whether the process ended by an uncaught signal (a crash or SIGKILL) rather than exiting.
    public var terminatedBySignal: Bool { !process.isRunning && process.terminationReason == .uncaughtSignal }

    /// Stops the server: SIGTERM, then SIGKILL if it has not exited within `graceMilliseconds`.
    public func stop(graceMilliseconds: Int = 3000) {
        guard process.isRunning else { return }
        kill(pid, SIGTERM)
        if waitForExit(timeoutMilliseconds: graceMilliseconds) == nil {
            kill(pid, SIGKILL)
            _ = waitForExit(timeoutMilliseconds: 2000)
        }
    }
}

/// Why ``ServerHarness`` could not start the server.
public enum HarnessError: Error, CustomStringConvertible {
    /// The binary is not where it should be: run `swift build` (or set HERALD_BIN_DIR).
    case binaryMissing(String)
    /// The server did not print its listening line in time.
    case notListening(output: String, log: String)
    /// The server exited before listening.
    case exitedEarly(status: Int32, output: String, log: String)

    public var description: String {
        switch self {
        case .binaryMissing(let path): "herald-server binary not found at \(path): run `swift build` first or set HERALD_BIN_DIR"
        case .notListening(let output, let log): "herald-server did not report listening; stdout: \(output) stderr: \(log)"
        case .exitedEarly(let status, let output, let log): "herald-server exited with \(status) before listening; stdout: \(output) stderr: \(log)"
        }
    }
}
