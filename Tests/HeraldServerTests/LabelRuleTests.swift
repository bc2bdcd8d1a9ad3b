import Foundation
import HeraldProtocol
@testable import HeraldServer
import HeraldTestSupport
import Testing

/// A group title is shown on every member's screen with no action of theirs (anyone may add anyone to a group), so
/// it follows the display-name rule (Identifiers.isLabel): no controls, line breaks or bidirectional overrides, from
/// herald.v1 and from the backend API alike, and nothing is stored when it is refused. Message text is not a label:
/// it stays any Unicode but U+0000 (the client draws it safely).
@Suite("Labels: group titles refuse controls and bidirectional overrides on both entry points", .serialized)
struct LabelRuleTests {
    /// Titles that would reach a terminal as instructions (window title, tmux rename, clipboard, clear screen, colours,
    /// overwrite, C1 CSI) or read as something else (right-to-left override, isolate), as JSON string bodies.
    static let hostileTitles = [
        #"\u001b]0;owned\u0007"#, #"\u001bkowned\u001b\\"#, #"\u001b]52;c;Y3VybA==\u0007"#, #"\u001b[2J"#, #"\u001b[31mred"#,
        #"evil\r\b\bok"#, #"two\nlines"#, #"\u009b2J"#, #"gnp.\u202eexe"#, #"a\u2066b"#, #"line\u2028sep"#, #"del\u007f"#,
    ]

    @Test("herald.v1: a group title with a control or bidi override is bad_request naming the rule, and no group is made; message text with them is stored")
    func syncRefusesHostileTitles() throws {
        let server = try InProcessSyncServer()
        defer { server.stop() }
        let alice = try SyncTestClient(port: server.port, token: try server.token("alice"))
        _ = try server.token("bob")
        try alice.request(#"{"type":"sync"}"#)
        for title in Self.hostileTitles {
            let response = try alice.request(#"{"type":"group","title":"\#(title)","members":["bob"]}"#)
            #expect(response.error?.code == .badRequest, "\(title)")
            #expect(response.error?.message.contains("field 'title' must be text without control characters") == true, "\(response.error?.message ?? "")")
        }
        #expect(try alice.request(#"{"type":"conversations"}"#).conversations?.isEmpty == true, "nothing stored")
        // Any script, emoji and right-to-left letters are titles.
        let fine = try alice.request(#"{"type":"group","title":"Équipe 🧗 שלום 漢字","members":["bob"]}"#)
        #expect(fine.conversation?.title == "Équipe 🧗 שלום 漢字")
        let c = try #require(fine.conversation?.id)
        let sent = try alice.request(#"{"type":"send","conversation":"\#(c)","clientMessageId":"a-1","text":"\u001b]0;x\u0007 \u202e ok"}"#)
        #expect(sent.error == nil && sent.message?.text == "\u{1B}]0;x\u{07} \u{202E} ok", "message text stays any Unicode but U+0000")
        alice.close()
    }

    @Test("API: POST /conversations with a hostile group title is 400 bad_request and stores nothing")
    func apiRefusesHostileTitles() throws {
        let server = try InProcessAPIServer()
        defer { server.stop() }
        let client = try APIClient(port: server.port, key: server.key)
        for user in ["alice", "bob"] { #expect(try client.request("POST", "/api/v1/users", json: #"{"id":"\#(user)","name":"\#(user.capitalized)"}"#).status == 201) }
        for title in Self.hostileTitles {
            let response = try client.request("POST", "/api/v1/conversations", json: #"{"kind":"group","title":"\#(title)","creator":"alice","members":["bob"]}"#)
            #expect(response.status == 400 && response.errorCode == "bad_request", "\(title): \(response.status)")
            #expect(response.body.contains("title must be text without control characters"), "\(response.body)")
        }
        let alice = try SyncTestClient(port: server.port, token: try server.token("alice"))
        try alice.request(#"{"type":"sync"}"#)
        #expect(try alice.request(#"{"type":"conversations"}"#).conversations?.isEmpty == true, "nothing stored")
        alice.close()
        #expect(try client.request("POST", "/api/v1/conversations", json: #"{"kind":"group","title":"Équipe 🧗","creator":"alice","members":["bob"]}"#).status == 201)
    }

    @Test("openapi.json states the title rule with the display-name pattern")
    func documentStatesTitleRule() throws {
        let name = try APIContentRulesTests.schema("CreateUser", property: "name")["pattern"] as? String
        let title = try #require(try Self.createGroupTitleSchema()["pattern"] as? String)
        #expect(title == name)
    }

    /// The `title` property of the group variant of POST /conversations.
    static func createGroupTitleSchema() throws -> [String: Any] {
        let data = try Data(contentsOf: URL(fileURLWithPath: APIOpenAPITests.documentPath))
        let text = try #require(String(data: data, encoding: .utf8))
        // The group body is a oneOf variant; find the one object schema with a "title" string of maxLength 200.
        let document = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        var found: [String: Any]?
        func walk(_ value: Any) {
            if let object = value as? [String: Any] {
                if let properties = object["properties"] as? [String: Any], let title = properties["title"] as? [String: Any], title["maxLength"] != nil {
                    found = title
                }
                object.values.forEach(walk)
            } else if let array = value as? [Any] {
                array.forEach(walk)
            }
        }
        walk(document)
        return try #require(found)
    }
}
