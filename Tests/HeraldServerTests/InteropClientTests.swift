import Foundation
import HeraldDeflate
import HeraldTestSupport
import Testing

/// Three independent WebSocket clients against the real server: Python `websockets`, Node.js `ws` and headless
/// Chromium, each over ws:// and wss://, against a server with and without permessage-deflate, on `/echo` and on
/// `/sync` (herald.v1: alice syncs, opens a dm and sends; bob, connected and synced, receives the `message` event).
/// The client logic is in `Tests/Interop/`; a test is skipped, with the install line, only when its peer is missing.
@Suite("Interop: Python websockets, Node ws, Chromium over ws/wss, with and without compression", .serialized)
struct InteropClientTests {
    static let interopDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Interop")

    /// Runs a command; returns its exit status and combined output.
    static func run(_ arguments: [String], environment: [String: String] = [:]) throws -> (Int32, String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        var env = ProcessInfo.processInfo.environment
        for (name, value) in environment { env[name] = value }
        process.environment = env
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, text)
    }

    static func succeeds(_ arguments: [String], environment: [String: String] = [:]) -> Bool {
        ((try? run(arguments, environment: environment))?.0 ?? 1) == 0
    }

    static let nodePath = "/usr/share/nodejs"
    static let pythonAvailable = succeeds(["python3", "-c", "import websockets.asyncio.client"])
    static let nodeAvailable = succeeds(["node", "-e", "require('ws')"], environment: ["NODE_PATH": nodePath])
    static let chromiumAvailable = ["chromium", "chromium-browser", "google-chrome"].contains { succeeds(["sh", "-c", "command -v \($0)"]) }

    /// Starts a server with ws:// on `port` and wss:// on `--tls-port`, makes tokens for alice and bob, and runs
    /// `script` with the config for both base URLs. Done once with compression on and once with it off.
    func runInterop(_ command: [String], environment: [String: String] = [:]) throws {
        let certificate = try ServerTestCertificate.shared.get()
        for compression in [true, false] {
            let server = try ServerHarness.start(["--bench-endpoints", "--tls-port", "0", compression ? "--compression" : "--no-compression"]
                                                 + certificate.serverArguments)
            defer { server.stop() }
            let tlsLine = try #require(server.standardOutput.split(separator: "\n").first { $0.hasPrefix("herald-server tls listening on ") })
            let tlsPort = try #require(tlsLine.split(separator: ":").last.flatMap { Int($0) })
            func token(_ user: String) throws -> String {
                let (status, output) = try Self.run([ServerHarness.binaryPath(), "token", user, "--db", server.databasePath])
                try #require(status == 0, "herald-server token \(user): \(output)")
                return output.trimmingCharacters(in: .whitespacesAndNewlines)
            }
            let config: [String: Any] = [
                "bases": ["ws://127.0.0.1:\(server.port)", "wss://127.0.0.1:\(tlsPort)"],
                "alice": try token("alice"), "bob": try token("bob"), "compression": compression, "ca": certificate.certificateFile,
            ]
            let json = String(decoding: try JSONSerialization.data(withJSONObject: config), as: UTF8.self)
            let (status, output) = try Self.run(command + [json], environment: environment)
            #expect(status == 0, "\(command.last ?? "") (compression \(compression)) failed:\n\(output)\nserver log:\n\(server.standardError)")
            for check in ["ok echo ws://", "ok sync ws://", "ok echo wss://", "ok sync wss://"] {
                #expect(output.contains(check), "missing \(check) (compression \(compression)) in:\n\(output)")
            }
            #expect(output.components(separatedBy: "compression=\(compression)").count - 1 == 4, "negotiation differs:\n\(output)")
        }
    }

    @Test("Python websockets: /echo and /sync over ws:// and wss://, server with and without permessage-deflate",
          .enabled(if: InteropClientTests.pythonAvailable, "python3 module `websockets` not installed: pip install websockets"))
    func pythonWebSockets() throws {
        try runInterop(["python3", Self.interopDirectory.appendingPathComponent("python_interop.py").path])
    }

    @Test("Node.js ws: /echo and /sync over ws:// and wss://, server with and without permessage-deflate",
          .enabled(if: InteropClientTests.nodeAvailable, "node or its ws module not installed: apt-get install -y nodejs node-ws"))
    func nodeWS() throws {
        try runInterop(["node", Self.interopDirectory.appendingPathComponent("node_interop.js").path], environment: ["NODE_PATH": Self.nodePath])
    }

    @Test("Chromium headless: /echo and /sync over ws:// and wss://, server with and without permessage-deflate",
          .enabled(if: InteropClientTests.chromiumAvailable, "chromium not installed: apt-get install -y chromium"))
    func chromium() throws {
        try runInterop(["python3", Self.interopDirectory.appendingPathComponent("chromium_interop.py").path])
    }
}
