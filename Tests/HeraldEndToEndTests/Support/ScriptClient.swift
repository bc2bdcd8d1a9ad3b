import Foundation

/// One JSON line printed by `herald --script`.
struct JSONLine: @unchecked Sendable, CustomStringConvertible {
    let raw: String
    let object: [String: Any]

    init?(_ raw: String) {
        guard let data = raw.data(using: .utf8),
            let object = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any]
        else { return nil }
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
    /// Every command is answered by exactly one line: `ok`, `error`, or (for `state`) a `state` line.
    var isAnswer: Bool { type == "ok" || type == "error" || type == "state" }
}

/// A `herald --script` process connected as one user (one device), driven through stdin and stdout.
///
/// Answers come back in command order, so the n-th command's answer is the n-th `ok`/`error` line;
/// events are kept in arrival order and waits scan from a mark so earlier events are not mistaken for new ones.
final class ScriptClient: @unchecked Sendable {
    let name: String
    private let process: Process
    private let input: FileHandle
    private let output: LineCollector
    private let errors: LineCollector
    private var commandsSent = 0

    /// Starts `herald --script` for a token against `server`, with short toasts unless told otherwise.
    init(_ name: String, server: String, token: String, arguments: [String] = [], toastDuration: Double? = 1) throws {
        self.name = name
        process = Process()
        process.executableURL = Binaries.client
        var args = ["--server", server, "--token", token, "--script"]
        if let toastDuration { args += ["--toast-duration", String(toastDuration)] }
        process.arguments = args + arguments
        let stdin = Pipe()
        let stdout = Pipe()
        let stderr = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = stderr
        try process.run()
        input = stdin.fileHandleForWriting
        output = LineCollector(stdout.fileHandleForReading)
        errors = LineCollector(stderr.fileHandleForReading)
    }

    /// Every JSON line printed so far.
    var lines: [JSONLine] { output.lines.compactMap(JSONLine.init) }

    /// A position in the output; waits given this mark only look at lines printed after it.
    var mark: Int { output.lines.count }

    /// Sends one command line without waiting for its answer.
    func send(_ line: String) {
        commandsSent += 1
        input.write(Data((line + "\n").utf8))
    }

    /// Sends a command and returns its answer line.
    @discardableResult
    func command(_ line: String, timeout: Duration = .seconds(10)) throws -> JSONLine {
        send(line)
        let index = commandsSent
        return try output.wait(timeout: timeout, what: "\(name): answer to '\(line)'") { lines in
            var seen = 0
            for raw in lines {
                guard let line = JSONLine(raw), line.isAnswer else { continue }
                seen += 1
                if seen == index { return line }
            }
            return nil
        }
    }

    /// Sends a command and requires an `ok` answer.
    @discardableResult
    func ok(_ line: String, timeout: Duration = .seconds(10)) throws -> JSONLine {
        let answer = try command(line, timeout: timeout)
        guard answer.type == "ok" else { throw HarnessError("\(name): '\(line)' answered \(answer.raw)") }
        return answer
    }

    /// Waits for an event named `name` printed after `mark` that satisfies `predicate`.
    @discardableResult
    func waitEvent(
        _ event: String, after mark: Int = 0, timeout: Duration = .seconds(10), where predicate: (JSONLine) -> Bool = { _ in true }
    ) throws -> JSONLine {
        try output.wait(timeout: timeout, what: "\(name): event \(event)") { lines in
            lines.dropFirst(mark).lazy.compactMap(JSONLine.init).first { $0.type == "event" && $0.event == event && predicate($0) }
        }
    }

    /// Events named `event` printed after `mark`, so far.
    func events(_ event: String, after mark: Int = 0) -> [JSONLine] {
        output.lines.dropFirst(mark).compactMap(JSONLine.init).filter { $0.type == "event" && $0.event == event }
    }

    /// Asks for `state` until `predicate` holds or the deadline passes; returns the last state.
    @discardableResult
    func waitState(timeout: Duration = .seconds(10), what: String = "state condition", _ predicate: (JSONLine) -> Bool) throws -> JSONLine {
        let deadline = ContinuousClock.now + timeout
        var last: JSONLine?
        while ContinuousClock.now < deadline {
            let state = try state()
            if predicate(state) { return state }
            last = state
            Thread.sleep(forTimeInterval: 0.05)
        }
        throw HarnessError("\(name): timed out waiting for \(what); last state: \(last?.raw ?? "none")")
    }

    /// One `state` line.
    func state() throws -> JSONLine {
        send("state")
        let index = commandsSent
        // `state` is answered by a state line, which counts as this command's answer.
        return try output.wait(timeout: .seconds(10), what: "\(name): state") { lines in
            var seen = 0
            for raw in lines {
                guard let line = JSONLine(raw), line.isAnswer else { continue }
                seen += 1
                if seen == index { return line.type == "state" ? line : nil }
            }
            return nil
        }
    }

    /// Waits for the `connected` event (R1a: the stream is live).
    func waitConnected(after mark: Int = 0, timeout: Duration = .seconds(15)) throws {
        try waitEvent("connected", after: mark, timeout: timeout)
    }

    /// `quit`, then the exit status.
    @discardableResult
    func quit() -> Int32 {
        if process.isRunning {
            input.write(Data("quit\n".utf8))
            try? input.close()
        }
        return waitForExit()
    }

    /// Waits for the process to end and returns its exit status.
    func waitForExit(timeout: Duration = .seconds(15)) -> Int32 {
        let deadline = ContinuousClock.now + timeout
        while process.isRunning && ContinuousClock.now < deadline { Thread.sleep(forTimeInterval: 0.02) }
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
        return process.terminationStatus
    }

    /// What the client printed on stderr (for failure messages).
    var stderrText: String { errors.lines.joined(separator: "\n") }

    deinit {
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
    }
}
