import Foundation
import Glibc
import HeraldProtocol
@testable import HeraldServer
import HeraldStore
import HeraldTestSupport
import Testing

/// Secrets at rest, through the built binary: the database (which holds the generated signing secret, every message
/// and the API key hashes) and its -wal/-shm files are 0600 whatever the umask, and the signing secret can come from
/// an owner-only file instead of an argument that `ps` shows.
@Suite("Hardening: secrets at rest (binary)", .serialized)
struct HardeningSecretsTests {
    /// `herald-server <arguments>` under `umask <mask>` (set by /bin/sh, which then execs the binary).
    static func run(_ arguments: [String], umask mask: String = "000", environment: [String: String] = [:]) throws -> CompletedProcess {
        var env = ProcessInfo.processInfo.environment
        for (name, value) in environment { env[name] = value }
        return try runToCompletion(
            "/bin/sh", ["-c", "umask \(mask) && exec \"$0\" \"$@\"", ServerHarness.binaryPath()] + arguments, environment: env, timeout: .seconds(30))
    }

    /// The permission bits of `path`, or nil when it does not exist.
    static func mode(_ path: String) -> mode_t? {
        var status = stat()
        return stat(path, &status) == 0 ? status.st_mode & 0o7777 : nil
    }

    /// A file holding `contents` with permissions `mode`, in `directory`.
    static func secretFile(_ contents: String, mode: mode_t = 0o600, in directory: URL, name: String = "secret") throws -> String {
        let path = directory.appendingPathComponent(name).path
        try Data(contents.utf8).write(to: URL(fileURLWithPath: path))
        try #require(chmod(path, mode) == 0)
        return path
    }

    static func companions(of database: String) -> [String] { [database, database + "-wal", database + "-shm"] }

    @Test("serve under umask 000 creates the database and its -wal and -shm 0600")
    func serveCreatesOwnerOnlyFiles() throws {
        let server = try ServerHarness.start([], fileCreationMask: "000")
        defer { server.stop() }
        // A write through the server, so the WAL is in use and all three files exist.
        let client = try SyncTestClient(port: server.port, token: try Hardening.token(server, "alice"))
        #expect(try client.request(#"{"type":"sync"}"#).ok)
        for path in Self.companions(of: server.databasePath) {
            #expect(Self.mode(path) == 0o600, "\(path): \(Self.mode(path).map { String($0, radix: 8) } ?? "missing")")
        }
    }

    @Test("token under umask 000 narrows a 0644 database, -wal and -shm a server has open to 0600")
    func tokenNarrowsOwnerOnlyFiles() throws {
        // Files an older build left 0644, held open by a running server so none of them goes away meanwhile.
        let server = try ServerHarness.start()
        defer { server.stop() }
        let client = try SyncTestClient(port: server.port, token: try Hardening.token(server, "bob"))
        #expect(try client.request(#"{"type":"sync"}"#).ok)
        for path in Self.companions(of: server.databasePath) { try #require(chmod(path, 0o644) == 0, "\(path)") }
        let narrowed = try Self.run(["token", "carol", "--db", server.databasePath])
        #expect(narrowed.status == 0, "\(narrowed.standardError)")
        for path in Self.companions(of: server.databasePath) {
            #expect(Self.mode(path) == 0o600, "\(path): \(Self.mode(path).map { String($0, radix: 8) } ?? "missing")")
        }
    }

    @Test("serve narrows a database left 0644 to 0600 and logs which file it changed")
    func serveNarrowsAndLogs() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("herald-secrets-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let database = directory.appendingPathComponent("old.db").path
        try SQLiteStore.createDatabase(at: database)
        try #require(chmod(database, 0o644) == 0)
        // The last --db wins, so the server opens this file rather than the harness's fresh one.
        let server = try ServerHarness.start(["--db", database])
        defer { server.stop() }
        #expect(Self.mode(database) == 0o600)
        #expect(server.standardError.contains("narrowed") && server.standardError.contains("0644 -> 0600"), "\(server.standardError)")
    }

    @Test("A token from `token --secret-file F` is accepted by `serve --secret-file F` (a /sync upgrade succeeds); the trailing newline is not part of the secret")
    func secretFileSignsAndVerifies() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("herald-secrets-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = try Self.secretFile("correct horse battery staple\n", in: directory)
        let server = try ServerHarness.start(["--secret-file", file])
        defer { server.stop() }
        // Minted on another database: only the file's secret can make the server accept it.
        let other = directory.appendingPathComponent("other.db").path
        try SQLiteStore.createDatabase(at: other)
        let minted = try Self.run(["token", "alice", "--db", other, "--secret-file", file])
        let token = minted.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(minted.status == 0, "\(minted.standardError)")
        let now = Int64(Date().timeIntervalSince1970)
        #expect((try? JSONWebToken.verify(token, secret: Array("correct horse battery staple".utf8), now: now).get())?.sub == "alice")
        let client = try SyncTestClient(port: server.port, token: token)
        #expect(try client.request(#"{"type":"sync"}"#).ok)

        // HERALD_SECRET_FILE is the same setting.
        let fromEnvironment = try Self.run(["token", "bob", "--db", other],
                                           environment: ["HERALD_SECRET_FILE": file])
        let bob = try SyncTestClient(port: server.port, token: fromEnvironment.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines))
        #expect(try bob.request(#"{"type":"sync"}"#).ok)
        #expect(!fromEnvironment.standardError.contains("warning"), "a file gives no --secret warning")
    }

    @Test("An empty, group-readable, world-readable or missing secret file, or a secret given twice, stops serve and token with a message and no database")
    func unusableSecretFilesAreRefused() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("herald-secrets-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let good = try Self.secretFile("s3cret", in: directory, name: "good")
        let cases: [(arguments: [String], environment: [String: String], message: String)] = [
            (["--secret-file", try Self.secretFile("\n", in: directory, name: "empty")], [:], "is empty"),
            (["--secret-file", try Self.secretFile("s3cret", mode: 0o640, in: directory, name: "group")], [:], "accessible by group or others (mode 0640); run: chmod 600"),
            (["--secret-file", try Self.secretFile("s3cret", mode: 0o644, in: directory, name: "world")], [:], "accessible by group or others (mode 0644)"),
            (["--secret-file", directory.appendingPathComponent("absent").path], [:], "cannot open secret file"),
            (["--secret-file", good, "--secret", "s3cret"], [:], "--secret/--secret-file"),
            ([], ["HERALD_SECRET_FILE": good, "HERALD_SECRET": "s3cret"], "HERALD_SECRET/HERALD_SECRET_FILE"),
        ]
        let database = directory.appendingPathComponent("never.db").path
        for (arguments, environment, message) in cases {
            for command in [["serve", "--port", "0"], ["token", "alice"]] {
                let result = try Self.run(command + ["--db", database] + arguments, environment: environment)
                #expect(result.status != 0 && result.status < 128, "\(command) \(arguments): exit \(result.status)")
                #expect(result.standardError.contains(message), "\(command) \(arguments): \(result.standardError)")
            }
        }
        #expect(!FileManager.default.fileExists(atPath: database), "a refused secret creates no database")
    }
}
