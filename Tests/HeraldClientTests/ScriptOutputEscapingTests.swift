import Foundation
@testable import HeraldClient
import HeraldProtocol
import HeraldTestSupport
import Testing

/// Script mode's stdout is JSON lines that people also read on a terminal: C1 controls (a raw U+009B is a CSI to many
/// terminals), DEL and bidirectional controls another user wrote are escaped (`\u009b`), never written raw; the
/// decoded text is unchanged, and the contract's names are too.
@Suite("herald --script: stdout escapes C1, DEL and bidirectional controls")
struct ScriptOutputEscapingTests {
    /// The text with a C1 CSI and NEL, DEL, a right-to-left override and an isolate.
    static let hostile = "csi\u{9B}2J nel\u{85} del\u{7F} rlo\u{202E}txt.exe fsi\u{2068}x\u{2069}"

    @Test("JSONValue.terminalSafeText escapes DEL, C1 and bidi controls as \\uXXXX; text leaves them raw; both decode to the same string")
    func escaping() throws {
        let value = JSONValue.object([JSONField("text", .string(Self.hostile))])
        let safe = value.terminalSafeText
        #expect(safe.contains(#"\u009b2J"#) && safe.contains(#"\u0085"#) && safe.contains(#"\u007f"#) && safe.contains(#"\u202e"#))
        #expect(!safe.unicodeScalars.contains { (0x7F...0x9F).contains($0.value) || [0x202E, 0x2068, 0x2069].contains($0.value) })
        #expect(safe.unicodeScalars.allSatisfy { $0.value >= 0x20 }, "one line, no C0")
        let decoded = try JSONSerialization.jsonObject(with: Data(safe.utf8)) as? [String: String]
        #expect(decoded?["text"] == Self.hostile)
        #expect(value.text.contains("\u{9B}"), "the wire format (frames, push payloads) is unchanged")
    }

    @Test("A message with C1, DEL and bidi controls reaches the other script client escaped on stdout, and decodes to what was sent")
    func messageEventEscaped() throws {
        let server = try TestServer()
        let alice = try server.client("alice")
        let bob = try server.client("bob")
        let c = try #require(try bob.ok("dm alice").string("conversation"))
        try bob.ok("send \(c) \(Self.hostile)")
        let event = try alice.waitEvent("message", where: { $0.string("conversation") == c })
        #expect(event.string("text") == Self.hostile, "the decoded text is what bob sent")
        #expect(event.raw.contains(#"\u009b2J"#), "\(event.raw)")
        for line in alice.output.lines {
            #expect(!line.unicodeScalars.contains { (0x7F...0x9F).contains($0.value) || (0x202A...0x202E).contains($0.value) || (0x2066...0x2069).contains($0.value) },
                    "a raw control on stdout: \(line.debugDescription)")
        }
    }
}

/// Script mode's human-readable lines (stderr) carry what the server said: they are drawable text, one line each.
@Suite("herald: stderr lines are drawable text")
struct StderrLineTests {
    @Test("A close reason with OSC 0, CR and a bidi override is one line of control pictures")
    func stderrLineIsDrawable() {
        let line = ClientRunner.stderrLine("closed: \u{1B}]0;pwned\u{07}\r\nforged\u{202E}", error: true)
        #expect(line == "herald: error: closed: ␛]0;pwned␇␍␊forged\n")
        #expect(ClientRunner.stderrLine("plain") == "herald: plain\n")
    }
}
