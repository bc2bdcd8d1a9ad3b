import Foundation
@testable import HeraldServer
import HeraldTestSupport
import Testing

/// The OpenAPI document: one source (openapi.json), served as it is, and checked against the running binary.
@Suite("API: OpenAPI document and the herald-server binary", .serialized)
struct APIOpenAPITests {
    static let documentPath = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Server/HeraldServer/API/openapi.json").path

    /// `schemathesis` on PATH (pip install schemathesis), if any.
    static let schemathesis: String? = {
        let paths = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map(String.init)
            + [NSHomeDirectory() + "/.local/bin"]
        return paths.map { $0 + "/schemathesis" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }()

    /// Runs the binary with `arguments`; returns status and stdout.
    static func run(_ arguments: [String]) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: ServerHarness.binaryPath())
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, output)
    }

    @Test("GET /api/v1/openapi.json serves exactly the bytes of Server/HeraldServer/API/openapi.json (compiled in by SwiftPM)")
    func servedDocumentIsTheFile() throws {
        let file = try Data(contentsOf: URL(fileURLWithPath: Self.documentPath))
        #expect(Array(OpenAPIDocument.json.utf8) == Array(file), "the compiled-in document differs from openapi.json")
        let server = try InProcessAPIServer()
        defer { server.stop() }
        let served = try APIClient(port: server.port, key: nil).request("GET", "/api/v1/openapi.json")
        #expect(served.status == 200 && served.header("Content-Type") == "application/json")
        #expect(Array(served.body.utf8) == Array(file))
        let document = try #require(served.object)
        #expect(document["openapi"] as? String == "3.1.0")
        let paths = Set((document["paths"] as? [String: Any])?.keys.map { $0 } ?? [])
        #expect(paths == ["/api/v1/health", "/api/v1/openapi.json", "/api/v1/users", "/api/v1/users/{id}", "/api/v1/users/{id}/tokens",
                          "/api/v1/users/{id}/notifications", "/api/v1/users/{id}/unread", "/api/v1/users/{id}/signout", "/api/v1/conversations",
                          "/api/v1/conversations/{id}/messages", "/api/v1/conversations/{id}/leave",
                          "/api/v1/conversations/{id}", "/api/v1/conversations/{id}/members",
                          "/api/v1/users/{id}/push-targets", "/api/v1/users/{id}/push-targets/{device}", "/api/v1/messages/{id}",
                          "/api/v1/messages/{id}/unsend", "/api/v1/users/{id}/mutes", "/api/v1/users/{id}/mutes/{conversation}"])
    }

    @Test("`herald-server apikey create` prints a key once, stores only its SHA-256, and the running binary accepts it")
    func apikeyCreateOnTheBinary() throws {
        let server = try ServerHarness.start()
        defer { server.stop() }
        let (status, output) = try Self.run(["apikey", "create", "--name", "ci", "--db", server.databasePath])
        #expect(status == 0)
        let key = output.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(APIKey.id(of: key) != nil)
        let client = try APIClient(port: server.port, key: key)
        #expect(try client.request("POST", "/api/v1/users", json: #"{"id":"alice","name":"Alice"}"#).status == 201)
        let raw = try Data(contentsOf: URL(fileURLWithPath: server.databasePath))
        #expect(raw.range(of: Data(key.utf8)) == nil, "the key itself is never stored")
    }

    @Test("schemathesis (--checks all, 20 examples per operation) finds no difference between openapi.json and the running binary",
          .enabled(if: schemathesis != nil, "schemathesis is not installed: pip install schemathesis"),
          .timeLimit(.minutes(2)))
    func schemathesisAgreesWithTheServer() throws {
        let server = try ServerHarness.start(["--api-rate-limit", "0"])
        defer { server.stop() }
        let (_, keyOutput) = try Self.run(["apikey", "create", "--db", server.databasePath])
        let key = keyOutput.trimmingCharacters(in: .whitespacesAndNewlines)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try #require(Self.schemathesis))
        process.arguments = ["run", "http://127.0.0.1:\(server.port)/api/v1/openapi.json", "-H", "Authorization: Bearer \(key)",
                             "--checks", "all", "--max-examples", "20", "--seed", "1", "--no-shrink", "--request-timeout", "10",
                             // An unknown user named in a body (a member, a notification's actor) is 404 like one in a
                             // path; this check reads any 404 right after a create as "the created resource is missing".
                             "--exclude-checks", "ensure_resource_availability"]
        process.currentDirectoryURL = server.directory
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "schemathesis failed:\n\(output.suffix(6000))")
        #expect(server.isRunning, "server died: \(server.standardError)")
    }
}
