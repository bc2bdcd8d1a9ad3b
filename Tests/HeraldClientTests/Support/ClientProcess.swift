import Foundation
import Glibc
import HeraldTestSupport
import Synchronization

/// Where the built binaries are: `$HERALD_BIN_DIR`, else `<package>/.build/debug` (from this file's path).
enum ClientBinaries {
    static let directory: URL = {
        if let dir = ProcessInfo.processInfo.environment["HERALD_BIN_DIR"], !dir.isEmpty { return URL(fileURLWithPath: dir) }
        // <package>/Tests/HeraldClientTests/Support/ClientProcess.swift
        return URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent(".build/debug")
    }()

    static var client: String { directory.appendingPathComponent("herald").path }
    static var server: String { directory.appendingPathComponent("herald-server").path }
}

/// A failure of the client harness (deadline passed, process gone), with what was seen.
struct ClientHarnessError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// One JSON line printed by `herald --script`, decoded.
struct OutputLine: @unchecked Sendable, CustomStringConvertible {
    let raw: String
    let object: [String: Any]

    init?(_ raw: String) {
        guard let data = raw.data(using: .utf8), let object = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] else {
            return nil
        }
        self.raw = raw
        self.object = object
    }

    var description: String { raw }
    subscript(_ key: String) -> Any? { object[key] }
    func string(_ key: String) -> String? { object[key] as? String }
    func int(_ key: String) -> Int? { (object[key] as? NSNumber)?.intValue }
    func bool(_ key: String) -> Bool? { (object[key] as? NSNumber)?.boolValue }
    func dict(_ key: String) -> [String: Any]? { object[key] as? [String: Any] }
    func array(_ key: String) -> [Any]? { object[key] as? [Any] }
    var type: String? { string("type") }
    var event: String? { string("event") }
    /// Command answers: ok, error, or the state line.
    var isAnswer: Bool { type == "ok" || type == "error" || type == "state" }

    // state helpers
    var unread: [String: Int] { (dict("unread") ?? [:]).compactMapValues { ($0 as? NSNumber)?.intValue } }
    var visible: [String] { (dict("viewport")?["visible"] as? [String]) ?? [] }
    var conversationIds: [String] { (array("conversations") as? [[String: Any]] ?? []).compactMap { $0["id"] as? String } }
    var toast: [String: Any]? { dict("toast") }
}

/// Reads a pipe on a thread and keeps every line, so waits can scan everything printed so far.
final class PipeLines: Sendable {
    private let state = Mutex<(lines: [String], partial: [UInt8], closed: Bool)>(([], [], false))

    init(_ handle: FileHandle) {
        Thread.detachNewThread { [self] in
            while true {
                let data = handle.availableData
                if data.isEmpty { break }
                state.withLock { state in
                    for byte in data {
                        if byte == UInt8(ascii: "\n") {
                            state.lines.append(String(decoding: state.partial, as: UTF8.self))
                            state.partial.removeAll(keepingCapacity: true)
                        } else {
                            state.partial.append(byte)
                        }
                    }
                }
            }
            state.withLock { $0.closed = true }
        }
    }

    var lines: [String] { state.withLock { $0.lines } }
    var closed: Bool { state.withLock { $0.closed } }
}

/// A `herald` process driven through stdin/stdout: send a command line, wait for a JSON line matching a
/// predicate with a deadline. Answers arrive in command order, so the n-th command's answer is the n-th
/// answer line; waits for events scan from a mark so earlier lines are not mistaken for new ones.
///
/// ```swift
/// let alice = try ClientProcess.start(server: server, token: token)
/// try alice.waitEvent("connected")
/// let c = try alice.ok("dm bob").string("conversation")
/// ```
final class ClientProcess: @unchecked Sendable {
    let process: Process
    private let stdin: FileHandle
    let stdout: PipeLines
    let stderr: PipeLines
    private var commandsSent = 0
    private let lock = NSLock()

    /// Starts `herald` with exactly these arguments (the caller adds `--script`).
    static func launch(_ arguments: [String], environment: [String: String] = [:]) throws -> ClientProcess {
        try ClientProcess(arguments: arguments, environment: environment)
    }

    /// Starts `herald --server ws://127.0.0.1:<port> --token <token> --script` plus `arguments`.
    static func start(port: Int, token: String, arguments: [String] = []) throws -> ClientProcess {
        try launch(["--server", "ws://127.0.0.1:\(port)", "--token", token, "--script"] + arguments)
    }

    private init(arguments: [String], environment: [String: String]) throws {
        guard FileManager.default.isExecutableFile(atPath: ClientBinaries.client) else {
            throw ClientHarnessError("herald binary missing at \(ClientBinaries.client); run swift build first")
        }
        process = Process()
        process.executableURL = URL(fileURLWithPath: ClientBinaries.client)
        process.arguments = arguments
        var env = ProcessInfo.processInfo.environment
        env["HERALD_SERVER"] = nil
        env["HERALD_TOKEN"] = nil
        for (name, value) in environment { env[name] = value }
        process.environment = env
        let input = Pipe(), output = Pipe(), errors = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        stdin = input.fileHandleForWriting
        stdout = PipeLines(output.fileHandleForReading)
        stderr = PipeLines(errors.fileHandleForReading)
    }

    deinit {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }

    /// Every decoded line so far.
    var lines: [OutputLine] { stdout.lines.compactMap(OutputLine.init) }

    /// A position in the output for later waits.
    var mark: Int { stdout.lines.count }

    /// Writes one line to the client's stdin without waiting.
    func send(_ line: String) {
        lock.lock()
        commandsSent += 1
        lock.unlock()
        try? stdin.write(contentsOf: Data((line + "\n").utf8))
    }

    /// Closes stdin (end of input).
    func closeInput() { try? stdin.close() }

    /// Waits until `find` returns a value for the lines printed so far, or throws at the deadline.
    func wait<T>(_ what: String, timeout: Double = 10, _ find: ([String]) -> T?) throws -> T {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            if let found = find(stdout.lines) { return found }
            if Date() > deadline || (stdout.closed && find(stdout.lines) == nil) {
                throw ClientHarnessError("timed out waiting for \(what)\nstdout:\n\(stdout.lines.suffix(30).joined(separator: "\n"))\nstderr:\n\(stderr.lines.suffix(10).joined(separator: "\n"))")
            }
            usleep(5_000)
        }
    }

    /// Sends a command and returns its answer line (ok, error or state).
    @discardableResult
    func command(_ line: String, timeout: Double = 10) throws -> OutputLine {
        send(line)
        lock.lock()
        let index = commandsSent
        lock.unlock()
        return try wait("answer to '\(line)'", timeout: timeout) { lines in
            var seen = 0
            for raw in lines {
                guard let line = OutputLine(raw), line.isAnswer else { continue }
                seen += 1
                if seen == index { return line }
            }
            return nil
        }
    }

    /// Sends a command that must answer `ok`.
    @discardableResult
    func ok(_ line: String, timeout: Double = 10) throws -> OutputLine {
        let answer = try command(line, timeout: timeout)
        guard answer.type == "ok" else { throw ClientHarnessError("'\(line)' answered \(answer.raw)") }
        return answer
    }

    /// One `state` line.
    func state() throws -> OutputLine { try command("state") }

    /// Polls `state` until `predicate` holds.
    @discardableResult
    func waitState(_ what: String, timeout: Double = 10, _ predicate: (OutputLine) -> Bool) throws -> OutputLine {
        let deadline = Date().addingTimeInterval(timeout)
        var last: OutputLine?
        while Date() < deadline {
            let state = try state()
            if predicate(state) { return state }
            last = state
            usleep(30_000)
        }
        throw ClientHarnessError("timed out waiting for state: \(what); last: \(last?.raw ?? "none")")
    }

    /// Waits for an event printed after `mark` that satisfies `predicate`.
    @discardableResult
    func waitEvent(_ name: String, after mark: Int = 0, timeout: Double = 10, where predicate: (OutputLine) -> Bool = { _ in true }) throws -> OutputLine {
        try wait("event \(name)", timeout: timeout) { lines in
            lines.dropFirst(mark).lazy.compactMap(OutputLine.init).first { $0.type == "event" && $0.event == name && predicate($0) }
        }
    }

    /// The events named `name` printed after `mark`, so far.
    func events(_ name: String, after mark: Int = 0) -> [OutputLine] {
        stdout.lines.dropFirst(mark).compactMap(OutputLine.init).filter { $0.type == "event" && $0.event == name }
    }

    /// Waits for the process to end; returns its exit status (SIGKILL after the deadline).
    func waitForExit(timeout: Double = 10) -> Int32 {
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline { usleep(10_000) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        return process.terminationStatus
    }

    /// `quit`, then the exit status.
    func quit() -> Int32 {
        send("quit")
        return waitForExit()
    }
}

/// A real server on a temp database, plus tokens for users.
final class TestServer: @unchecked Sendable {
    let harness: ServerHarness
    private var previous: [ServerHarness] = []
    private var current: ServerHarness

    init(_ arguments: [String] = []) throws {
        harness = try ServerHarness.start(arguments)
        current = harness
    }

    var port: Int { harness.port }

    /// `herald-server token <user> --name <Name> --db <db>`.
    func token(_ user: String, name: String? = nil) throws -> String {
        let result = try run(ClientBinaries.server, ["token", user, "--name", name ?? user.prefix(1).uppercased() + user.dropFirst(), "--db", harness.databasePath])
        let data = Data(result.output.utf8)
        let token = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard result.status == 0, !token.isEmpty else { throw ClientHarnessError("token \(user) failed") }
        return token
    }

    /// Starts `herald --script` as `user` and waits for `connected`.
    func client(_ user: String, arguments: [String] = [], waitConnected: Bool = true) throws -> ClientProcess {
        let client = try ClientProcess.start(port: port, token: try token(user), arguments: arguments)
        if waitConnected { try client.waitEvent("connected", timeout: 15) }
        return client
    }

    /// Kills the server (SIGKILL) and starts it again on the same port and database.
    func restart(downFor seconds: Double = 0) throws {
        current.send(signal: SIGKILL)
        _ = current.waitForExit(timeoutMilliseconds: 5000)
        if seconds > 0 { usleep(UInt32(seconds * 1_000_000)) }
        previous.append(current)
        current = try ServerHarness.start(["--port", String(harness.port), "--db", harness.databasePath])
    }

    /// Stops the server for good.
    func kill() {
        current.send(signal: SIGKILL)
        _ = current.waitForExit(timeoutMilliseconds: 5000)
    }
}

/// Runs a command and returns its status and stdout (for tmux). posix_spawn + waitpid rather than Foundation's
/// Process: `tmux new-session` forks the tmux server, and Process can then wait forever for the client.
@discardableResult
func run(_ executable: String, _ arguments: [String]) throws -> (status: Int32, output: String) {
    let outputPath = FileManager.default.temporaryDirectory.appendingPathComponent("herald-tmux-\(UUID().uuidString)").path
    defer { unlink(outputPath) }
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    // Children (the tmux server, herald) must not inherit the test thread's blocked signals.
    var none = sigset_t()
    sigemptyset(&none)
    posix_spawnattr_setsigmask(&attributes, &none)
    posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK))
    let argv = ([executable] + arguments).map { strdup($0) } + [nil]
    defer { for pointer in argv { free(pointer) } }
    var pid: pid_t = 0
    let spawned = posix_spawn(&pid, executable, &actions, &attributes, argv, environ)
    guard spawned == 0 else { throw ClientHarnessError("posix_spawn \(executable) failed: \(spawned)") }
    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    let output = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
    return ((status >> 8) & 0xFF, output)
}

