import Foundation
import HeraldTestSupport

/// One of `Tests/PushStandIns/*.py` running: a push provider played by third-party libraries (PyPI), with its log of
/// every request (verified or not) and its scripted answers, reached over HTTPS with the test certificate.
final class PushStandIn: @unchecked Sendable {
    let port: Int
    let certificate: SelfSignedCertificate
    private let process: ChildProcess
    private let stdout: LineCollector
    private let stderr: LineCollector
    private let script: String
    private let arguments: [String]

    /// Starts `Tests/PushStandIns/<script>` on `port` (0: any) and waits for its `READY <port>` line.
    init(_ script: String, _ arguments: [String], certificate: SelfSignedCertificate, port: Int = 0) throws {
        self.script = script
        self.arguments = arguments
        self.certificate = certificate
        let path = Self.directory + "/" + script
        process = try ChildProcess(
            "/usr/bin/env", ["python3", path, "--cert", certificate.certificateFile, "--key", certificate.keyFile, "--port", String(port)] + arguments,
            output: .pipe, error: .pipe)
        stdout = LineCollector(descriptor: process.pipes.output ?? -1)
        stderr = LineCollector(descriptor: process.pipes.error ?? -1)
        let errors = stderr
        self.port = try stdout.wait("\(script) READY", timeout: .seconds(20), context: { errors.lines.suffix(20).joined(separator: "\n") }) { lines in
            lines.lazy.compactMap { $0.hasPrefix("READY ") ? Int($0.dropFirst(6)) : nil }.first
        }
    }

    deinit { stop() }

    /// Tests/PushStandIns, next to this package's Tests folder.
    static let directory: String = {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("PushStandIns").path
    }()

    func stop() {
        process.send(signal: SIGTERM)
        _ = process.waitForExitOrKill(timeout: .seconds(5))
    }

    /// Every request so far, oldest first (the stand-in's own log, as JSON objects).
    func log() throws -> [[String: Any]] {
        let result = try runToCompletion(
            "/usr/bin/curl", ["-s", "--cacert", certificate.certificateFile, "https://127.0.0.1:\(port)/_control/log"])
        return (try? JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [[String: Any]]) ?? []
    }

    /// Replaces the scripted answers (`200`, `410`, `429:1`, `down`, …, see Tests/PushStandIns/README.md).
    func respond(_ spec: String) throws {
        let result = try runToCompletion(
            "/usr/bin/curl", ["-s", "-o", "/dev/null", "-w", "%{http_code}", "--cacert", certificate.certificateFile, "--data-binary", spec,
                              "https://127.0.0.1:\(port)/_control/responses"])
        guard result.standardOutput == "200" else { throw ProcessHarnessError("control answered \(result.standardOutput)") }
    }

    /// Polls the log until `predicate` finds what it waits for.
    @discardableResult
    func waitLog<T>(_ what: String, timeout: Duration = .seconds(20), _ predicate: ([[String: Any]]) -> T?) throws -> T {
        let deadline = ContinuousClock.now + timeout
        var entries: [[String: Any]] = []
        while ContinuousClock.now < deadline {
            entries = try log()
            if let found = predicate(entries) { return found }
            Thread.sleep(forTimeInterval: 0.05)
        }
        throw ProcessHarnessError("timed out waiting for \(script): \(what)\nlog: \(entries.suffix(8))\nstderr: \(stderr.lines.suffix(10).joined(separator: "\n"))")
    }

    /// Requests whose decoded payload names `message` (wherever the provider carries our fields).
    static func entries(_ entries: [[String: Any]], about message: String) -> [[String: Any]] {
        entries.filter { entry in
            guard let payload = entry["payload"], JSONSerialization.isValidJSONObject(payload) else { return false }
            let text = (try? JSONSerialization.data(withJSONObject: payload)).map { String(decoding: $0, as: UTF8.self) } ?? ""
            return text.contains("\"\(message)\"")
        }
    }
}
