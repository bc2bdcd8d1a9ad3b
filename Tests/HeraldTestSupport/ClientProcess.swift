import Foundation
import Glibc
import Synchronization

/// A `herald` process driven through stdin and stdout (client-script.md): send a command line, wait for a JSON
/// line matching a predicate with a deadline.
///
/// Answers arrive in command order, so the n-th command's answer is the n-th answer line (`ok`, `error` or
/// `state`); waits for events scan from a mark so earlier lines are not mistaken for new ones.
///
/// ```swift
/// let server = try TestServer()
/// let alice = try server.client("alice")        // waits for `connected`
/// let c = try alice.ok("dm bob").string("conversation")
/// let mark = alice.mark
/// try alice.waitEvent("message", after: mark) { $0.string("conversation") == c }
/// try alice.waitState("read") { $0.unread(c!) == 0 }
/// ```
public final class ClientProcess: @unchecked Sendable {
    // @unchecked: immutable after init except `input`, guarded by its Mutex.

    /// A label for failure messages (the user, usually).
    public let name: String
    /// The `herald` process.
    public let child: ChildProcess
    /// stdout, line by line.
    public let output: LineCollector
    /// stderr, line by line.
    public let errors: LineCollector
    /// stdin's descriptor (nil once closed) and the number of commands sent.
    private let input: Mutex<(descriptor: Int32?, commandsSent: Int)>

    /// Starts `herald` with exactly these arguments. HERALD_SERVER, HERALD_TOKEN and HERALD_TOKEN_FILE are removed
    /// from the inherited environment, then `environment` is added.
    public static func launch(_ arguments: [String], name: String = "herald", environment: [String: String] = [:]) throws -> ClientProcess {
        try ClientProcess(name: name, arguments: arguments, environment: environment)
    }

    /// Starts `herald --server ws://127.0.0.1:<port> --token <token> --script`, then `--toast-duration-seconds` when
    /// given, then `arguments`.
    public static func start(port: Int, token: String, name: String = "herald", toastDuration: Double? = nil,
                             arguments: [String] = []) throws -> ClientProcess {
        var all = ["--server", "ws://127.0.0.1:\(port)", "--token", token, "--script"]
        if let toastDuration { all += ["--toast-duration-seconds", String(toastDuration)] }
        return try launch(all + arguments, name: name)
    }

    private init(name: String, arguments: [String], environment: [String: String]) throws {
        self.name = name
        var env = ProcessInfo.processInfo.environment
        env["HERALD_SERVER"] = nil
        env["HERALD_TOKEN"] = nil
        env["HERALD_TOKEN_FILE"] = nil
        for (key, value) in environment { env[key] = value }
        child = try ChildProcess(HeraldBinaries.client, arguments, environment: env, input: .pipe, output: .pipe, error: .pipe)
        // The three pipes were asked for, so all three ends exist.
        output = LineCollector(descriptor: child.pipes.output ?? -1)
        errors = LineCollector(descriptor: child.pipes.error ?? -1)
        input = Mutex((child.pipes.input, 0))
    }

    deinit {
        closeInput()
        _ = child.waitForExitOrKill(timeout: .zero)
    }

    /// Every decoded line so far.
    public var lines: [OutputLine] { output.lines.compactMap(OutputLine.init) }

    /// A position in the output; waits given this mark only look at lines printed after it.
    public var mark: Int { output.lines.count }

    /// What the client printed on stderr, line by line.
    public var stderrLines: [String] { errors.lines }

    /// What the client printed on stderr.
    public var stderrText: String { errors.lines.joined(separator: "\n") }

    /// Writes one command line to stdin without waiting for its answer.
    public func send(_ line: String) {
        _ = write(line)
    }

    /// Writes `line` and returns the number of commands sent so far, this one included.
    private func write(_ line: String) -> Int {
        input.withLock { input in
            input.commandsSent += 1
            guard let descriptor = input.descriptor else { return input.commandsSent }
            let bytes = Array((line + "\n").utf8)
            var offset = 0
            while offset < bytes.count {
                let written = bytes[offset...].withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
                if written < 0 && errno == EINTR { continue }
                if written <= 0 { break }  // EPIPE: the client is gone; the wait that follows reports it.
                offset += written
            }
            return input.commandsSent
        }
    }

    /// Closes stdin (end of input).
    public func closeInput() {
        input.withLock { input in
            if let descriptor = input.descriptor { close(descriptor) }
            input.descriptor = nil
        }
    }

    /// Waits until `find` returns a value for the raw stdout lines so far, or throws at the deadline.
    public func wait<T>(_ what: String, timeout: Duration = .seconds(10), _ find: ([String]) -> T?) throws -> T {
        try output.wait("\(name): \(what)", timeout: timeout, context: { "\nstderr:\n" + self.errors.lines.suffix(10).joined(separator: "\n") }, find)
    }

    /// The `index`-th answer line (1-based) among `lines`.
    private static func answer(_ index: Int, in lines: [String]) -> OutputLine? {
        var seen = 0
        for raw in lines {
            guard let line = OutputLine(raw), line.isAnswer else { continue }
            seen += 1
            if seen == index { return line }
        }
        return nil
    }

    /// Sends a command and returns its answer line (`ok`, `error` or `state`).
    @discardableResult
    public func command(_ line: String, timeout: Duration = .seconds(10)) throws -> OutputLine {
        let index = write(line)
        return try wait("answer to '\(line)'", timeout: timeout) { Self.answer(index, in: $0) }
    }

    /// Sends a command that must answer `ok`.
    @discardableResult
    public func ok(_ line: String, timeout: Duration = .seconds(10)) throws -> OutputLine {
        let answer = try command(line, timeout: timeout)
        guard answer.type == "ok" else { throw ProcessHarnessError("\(name): '\(line)' answered \(answer.raw)") }
        return answer
    }

    /// One `state` line (an answer of another type is an error).
    public func state() throws -> OutputLine {
        let answer = try command("state")
        guard answer.type == "state" else { throw ProcessHarnessError("\(name): 'state' answered \(answer.raw)") }
        return answer
    }

    /// Asks for `state` until `predicate` holds; throws at the deadline with the last state seen.
    @discardableResult
    public func waitState(_ what: String, timeout: Duration = .seconds(10), _ predicate: (OutputLine) -> Bool) throws -> OutputLine {
        let deadline = ContinuousClock.now + timeout
        var last: OutputLine?
        while ContinuousClock.now < deadline {
            let state = try state()
            if predicate(state) { return state }
            last = state
            usleep(30_000)
        }
        throw ProcessHarnessError("\(name): timed out waiting for state: \(what); last state: \(last?.raw ?? "none")")
    }

    /// Waits for an event named `event` printed after `mark` that satisfies `predicate`.
    @discardableResult
    public func waitEvent(_ event: String, after mark: Int = 0, timeout: Duration = .seconds(20),
                          where predicate: (OutputLine) -> Bool = { _ in true }) throws -> OutputLine {
        try wait("event \(event)", timeout: timeout) { lines in
            lines.dropFirst(mark).lazy.compactMap(OutputLine.init).first { $0.type == "event" && $0.event == event && predicate($0) }
        }
    }

    /// Waits for the `connected` event after `mark` (R1a: the stream is live).
    public func waitConnected(after mark: Int = 0, timeout: Duration = .seconds(15)) throws {
        try waitEvent("connected", after: mark, timeout: timeout)
    }

    /// The events named `event` printed after `mark`, so far.
    public func events(_ event: String, after mark: Int = 0) -> [OutputLine] {
        output.lines.dropFirst(mark).compactMap(OutputLine.init).filter { $0.type == "event" && $0.event == event }
    }

    /// Waits for the process to end and returns its exit status (SIGKILL at the deadline: 137). Also waits (up to
    /// two seconds) until stdout and stderr are read to their end, so what the process printed last is in
    /// ``lines`` and ``stderrLines`` when this returns.
    public func waitForExit(timeout: Duration = .seconds(15)) -> Int32 {
        let status = child.waitForExitOrKill(timeout: timeout)
        let deadline = ContinuousClock.now + .seconds(2)
        while !(output.closed && errors.closed) && ContinuousClock.now < deadline { usleep(2_000) }
        return status
    }

    /// Sends `quit` (stdin stays open, so only the command can end it), then returns the exit status.
    @discardableResult
    public func quit() -> Int32 {
        if child.isRunning { send("quit") }
        return waitForExit()
    }
}
