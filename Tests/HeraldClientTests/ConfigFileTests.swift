import Foundation
@testable import HeraldClient
import HeraldTestSupport
import Testing

/// The config file (XDG Base Directory path) through the real `herald`: it holds the server and the token file so
/// neither is typed every time, and flags override it.
@Suite("herald config file")
struct ConfigFileTests {
    /// A fresh directory with `herald/config` (under `subpath`) holding `text`; returns the directory.
    private func configDirectory(_ text: String, subpath: String = "herald") throws -> String {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("herald-config-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory + "/" + subpath, withIntermediateDirectories: true)
        try text.write(toFile: directory + "/" + subpath + "/config", atomically: true, encoding: .utf8)
        return directory
    }

    private func tokenFile(_ token: String) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("herald-token-\(UUID().uuidString)").path
        try (token + "\n").write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test("$XDG_CONFIG_HOME/herald/config gives the server and the token file: the client connects with no flags")
    func configFileAlone() throws {
        let server = try TestServer()
        let file = try tokenFile(try server.token("alice"))
        let directory = try configDirectory("# Herald\nserver = \(server.url)\ntoken-file = \(file)\n")
        let client = try ClientProcess.launch(["--script"], environment: ["XDG_CONFIG_HOME": directory])
        try client.waitConnected()
        #expect(try client.state().string("user") == "alice")
    }

    @Test("Without XDG_CONFIG_HOME the file is ~/.config/herald/config")
    func homeFallback() throws {
        let server = try TestServer()
        let file = try tokenFile(try server.token("alice"))
        let home = try configDirectory("server = \(server.url)\ntoken-file = \(file)\n", subpath: ".config/herald")
        let client = try ClientProcess.launch(["--script"], environment: ["XDG_CONFIG_HOME": "", "HOME": home])
        try client.waitConnected()
    }

    @Test("Flags override the config file: --server and --token win over a file naming an unreachable server and no token")
    func flagsOverride() throws {
        let server = try TestServer()
        let token = try server.token("bob")
        let directory = try configDirectory("server = ws://127.0.0.1:1\ntoken-file = /nonexistent/token\n")
        let client = try ClientProcess.launch(["--script", "--server", server.url, "--token", token], environment: ["XDG_CONFIG_HOME": directory])
        try client.waitConnected()
        #expect(try client.state().string("user") == "bob")
    }

    @Test("A typo in the config file is a bad flag (exit 2) naming the file and the line")
    func typoRefused() throws {
        let directory = try configDirectory("server = ws://127.0.0.1:1\nservr = ws://127.0.0.1:2\n")
        let client = try ClientProcess.launch(["--script"], environment: ["XDG_CONFIG_HOME": directory])
        #expect(client.waitForExit() == 2)
        #expect(client.stderrText.contains(directory + "/herald/config:2") && client.stderrText.contains("servr"), "\(client.stderrText)")
    }

    @Test("The file's rules: comments and blank lines skipped, spaces around '=' ignored, ~/ is the home directory, XDG before HOME")
    func parsingRules() throws {
        let text = "  # a comment\n\nserver=ws://h:1\n token-file =  ~/t.token  \r\n"
        let config = try ClientConfigFile.parse(text, path: "/c", home: "/home/a")
        #expect(config == ClientConfigFile(server: "ws://h:1", tokenFile: "/home/a/t.token"))
        #expect(ClientConfigFile.path { ["XDG_CONFIG_HOME": "/x", "HOME": "/h"][$0] } == "/x/herald/config")
        #expect(ClientConfigFile.path { ["XDG_CONFIG_HOME": "relative", "HOME": "/h"][$0] } == "/h/.config/herald/config")
        #expect(ClientConfigFile.path { _ in nil } == nil)
        #expect(throws: ClientConfigFileError(path: "/c", line: 1, cause: "expected `key = value`")) {
            try ClientConfigFile.parse("server ws://h:1", path: "/c", home: nil)
        }
    }
}
