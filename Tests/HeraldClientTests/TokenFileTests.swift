import Foundation
import Glibc
import HeraldTestSupport
import Testing

/// `--token-file <path>` and HERALD_TOKEN_FILE: the token read from a file (trailing newline ignored), so it stays out
/// of `ps` and one file serves every terminal; a file that cannot be read is a bad flag (exit 2) naming the file.
@Suite("herald --token-file", .serialized)
struct TokenFileTests {
    /// A scratch directory, removed when the test ends.
    final class Scratch {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("herald-token-file-\(UUID().uuidString)")
        init() throws { try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true) }
        deinit { try? FileManager.default.removeItem(at: directory) }

        /// A file named `name` holding `text`, owner-only as `.dev/run` writes them.
        func file(_ name: String, _ text: String) throws -> String {
            let path = directory.appendingPathComponent(name).path
            try Data(text.utf8).write(to: URL(fileURLWithPath: path))
            chmod(path, 0o600)
            return path
        }
    }

    @Test("--token-file connects as the file's user; the trailing newline is not part of the token")
    func flagReadsTheFile() throws {
        let scratch = try Scratch()
        let server = try TestServer()
        let path = try scratch.file("alice.token", try server.token("alice") + "\n")
        let client = try ClientProcess.launch(["--server", server.url, "--token-file", path, "--script"])
        try client.waitConnected()
        #expect(try client.state().string("user") == "alice")
        #expect(client.quit() == 0)
    }

    @Test("HERALD_TOKEN_FILE stands in for the flag; --token-file wins over HERALD_TOKEN")
    func environmentAndPrecedence() throws {
        let scratch = try Scratch()
        let server = try TestServer()
        let bob = try scratch.file("bob.token", try server.token("bob") + "\n")
        let fromEnvironment = try ClientProcess.launch(["--server", server.url, "--script"], environment: ["HERALD_TOKEN_FILE": bob])
        try fromEnvironment.waitConnected()
        #expect(try fromEnvironment.state().string("user") == "bob")
        #expect(fromEnvironment.quit() == 0)

        let flagWins = try ClientProcess.launch(["--server", server.url, "--token-file", bob, "--script"], environment: ["HERALD_TOKEN": try server.token("carol")])
        try flagWins.waitConnected()
        #expect(try flagWins.state().string("user") == "bob")
        #expect(flagWins.quit() == 0)
    }

    @Test("exit 2 with one line naming the file: missing, unreadable, empty; and --token with --token-file")
    func unreadableFileIsABadFlag() throws {
        let scratch = try Scratch()
        let missing = scratch.directory.appendingPathComponent("missing.token").path
        let empty = try scratch.file("empty.token", "\n")
        let directory = scratch.directory.path
        let cases: [(arguments: [String], environment: [String: String], names: String)] = [
            (["--token-file", missing], [:], missing),
            ([], ["HERALD_TOKEN_FILE": missing], missing),
            (["--token-file", empty], [:], empty),
            (["--token-file", directory], [:], directory),
            (["--token-file", empty, "--token", "a.eyJzdWIiOiJhIn0.b"], [:], "--token-file"),
        ]
        for (arguments, environment, names) in cases {
            let client = try ClientProcess.launch(["--server", "ws://127.0.0.1:1", "--script"] + arguments, environment: environment)
            #expect(client.waitForExit() == 2, "\(arguments) \(environment)")
            let errors = client.stderrLines.filter { !$0.isEmpty }
            #expect(errors.count == 1 && errors.first?.hasPrefix("herald: error:") == true && errors.first?.contains(names) == true,
                    "\(arguments) \(environment): \(errors)")
        }
    }
}
