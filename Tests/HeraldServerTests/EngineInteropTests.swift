import Foundation
import HeraldTestSupport
import Testing

/// A third-party client (Python `websockets`) against the real server: `Tests/Interop/python_echo.py`.
@Suite("Engine: interop with Python websockets")
struct EngineInteropTests {
    /// Whether `python3 -c 'import websockets'` works; the test is skipped (with the reason) only when it does not.
    static let pythonWebSocketsAvailable: Bool = {
        let probe = Process()
        probe.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        probe.arguments = ["python3", "-c", "import websockets"]
        probe.standardOutput = FileHandle.nullDevice
        probe.standardError = FileHandle.nullDevice
        guard (try? probe.run()) != nil else { return false }
        probe.waitUntilExit()
        return probe.terminationStatus == 0
    }()

    @Test("Python websockets: text, binary, 64 KiB, ping and a fragmented message round-trip through /echo; clean close 1000",
          .enabled(if: EngineInteropTests.pythonWebSocketsAvailable, "python3 module `websockets` not installed: pip install websockets"))
    func pythonWebSocketsEcho() throws {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Interop/python_echo.py").path
        try withEchoServer { server in
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = ["python3", script, "ws://127.0.0.1:\(server.port)/echo"]
            let output = Pipe()
            process.standardOutput = output
            process.standardError = output
            try process.run()
            let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            #expect(process.terminationStatus == 0, "python_echo.py failed:\n\(text)")
            for check in ["ok text", "ok binary", "ok 64KiB", "ok ping", "ok fragmented", "ok close 1000"] {
                #expect(text.contains(check), "missing \(check) in:\n\(text)")
            }
        }
    }
}
