import Foundation
import HeraldTestSupport
import Testing

/// README.md's "Backend HTTP API" example, read from the README and run by bash as printed against a real server on
/// a fresh database: only the built binary's directory, the database path and the port are put in for
/// `.build/release/`, `herald.db` and 8080, which a reader has and a parallel test cannot.
@Suite("README's backend API example runs as printed")
struct ReadmeAPIExampleTests {
    /// The first ```sh block of README.md's `## Backend HTTP API` section.
    static func exampleBlock(filePath: String = #filePath) throws -> String {
        let readme = URL(fileURLWithPath: filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("README.md")
        let text = try String(contentsOf: readme, encoding: .utf8)
        guard let section = text.range(of: "\n## Backend HTTP API\n"),
              let open = text.range(of: "\n```sh\n", range: section.upperBound..<text.endIndex),
              let close = text.range(of: "\n```\n", range: open.upperBound..<text.endIndex) else {
            throw ProcessHarnessError("README.md's ## Backend HTTP API has no ```sh block")
        }
        return String(text[open.upperBound..<close.lowerBound])
    }

    @Test("the API example creates users, a token, a conversation whose id it reads from the answer, a message, a notification, then reads unread counts, signs a device out and asks health, with no error answered")
    func apiExampleRuns() throws {
        let server = try TestServer()
        let block = try Self.exampleBlock()
        #expect(block.contains(".build/release/herald-server"), "the example runs the built binary, which is not on PATH")
        #expect(!block.contains("/conversations/c1/"), "the example takes the conversation's id from the answer, never assumes c1")
        let script = block
            .replacingOccurrences(of: ".build/release/", with: HeraldBinaries.directory.path + "/")
            .replacingOccurrences(of: "--db herald.db", with: "--db '\(server.databasePath)'")
            .replacingOccurrences(of: "127.0.0.1:8080", with: "127.0.0.1:\(server.port)")
        let result = try runToCompletion("/bin/bash", ["-e", "-o", "pipefail", "-c", script], timeout: .seconds(60))
        let output = result.standardOutput
        #expect(result.status == 0, "the example failed (\(result.status)):\n\(output)\n\(result.standardError)")
        #expect(!output.contains("\"error\""), "an API call of the example was refused:\n\(output)")
        // curl's answers end without a newline, so `echo $C` ends the token's line.
        #expect(output.split(separator: "\n").contains { $0 == "c1" || $0.hasSuffix("}c1") }, "echo $C prints the new conversation's id:\n\(output)")
        #expect(output.contains("\"conversation\":\"c1\"") && output.contains("\"text\":\"Welcome!\""), "the message went to the conversation read from the answer:\n\(output)")
        #expect(output.contains("\"conversations\":[{\"conversation\":\"c1\",\"unread\":1}]"), "bob has the message unread:\n\(output)")
        #expect(output.contains("\"status\":\"ok\""), "health answered:\n\(output)")
    }
}
