import Foundation
import HeraldProtocol
@testable import HeraldServer
import HeraldTestSupport
import Testing

/// The backend API refuses exactly what herald.v1 refuses (one rule per kind of content), and says so in openapi.json.
@Suite("API: the same id and content rules as /sync", .serialized)
struct APIContentRulesTests {
    static func schema(_ name: String, property: String) throws -> [String: Any] {
        let data = try Data(contentsOf: URL(fileURLWithPath: APIOpenAPITests.documentPath))
        let document = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let schemas = try #require((document["components"] as? [String: Any])?["schemas"] as? [String: Any])
        let properties = try #require((schemas[name] as? [String: Any])?["properties"] as? [String: Any])
        return try #require(properties[property] as? [String: Any])
    }

    @Test("openapi.json publishes the code's own patterns for imageURL and notification links")
    func documentStatesTheCodesRules() throws {
        #expect(try Self.schema("PostMessage", property: "imageURL")["pattern"] as? String == ContentRules.webURLPattern)
        #expect(try Self.schema("CreateNotification", property: "url")["pattern"] as? String == ContentRules.linkPattern)
        #expect(try Self.schema("PostMessage", property: "clientMessageId")["pattern"] as? String == "^[!-~]+$")
    }

    @Test("Content: javascript:/file:/private-address images, javascript: links, control characters in names and look-alike ids are 400; an unknown actor is 404")
    func contentIsCheckedLikeSync() throws {
        let server = try InProcessAPIServer()
        defer { server.stop() }
        let client = try APIClient(port: server.port, key: server.key)
        for user in ["alice", "bob"] { #expect(try client.request("POST", "/api/v1/users", json: #"{"id":"\#(user)","name":"\#(user.capitalized)"}"#).status == 201) }
        #expect(try client.request("POST", "/api/v1/users", json: #"{"id":"\u212Aate","name":"Kate"}"#).status == 400)
        #expect(try client.request("POST", "/api/v1/users", json: #"{"id":"mallory","name":"Mal\nSystem: reset your password"}"#).status == 400)
        let c = try #require(try client.request("POST", "/api/v1/conversations", json: #"{"kind":"direct","members":["alice","bob"]}"#).object?["id"] as? String)
        for url in ["javascript:alert(1)", "file:///etc/passwd", "http://169.254.169.254/latest", "https://user:pw@example.com/a.png", "http://127.0.0.1/"] {
            let posted = try client.request("POST", "/api/v1/conversations/\(c)/messages", json: #"{"sender":"alice","clientMessageId":"i-1","imageURL":"\#(url)"}"#)
            #expect(posted.status == 400, "\(url): \(posted.status)")
        }
        #expect(try client.request("POST", "/api/v1/conversations/\(c)/messages", json: #"{"sender":"alice","clientMessageId":"i-1","imageURL":"https://cdn.example.com/a.png"}"#).status == 201)
        // U+0000: PostgreSQL's text cannot hold it, so neither store takes it (from herald.v1 or here).
        let nul = try client.request("POST", "/api/v1/conversations/\(c)/messages", json: #"{"sender":"alice","clientMessageId":"n-1","text":"a\u0000b"}"#)
        #expect(nul.status == 400 && nul.errorCode == "bad_request")
        let link = try client.request("POST", "/api/v1/users/bob/notifications", json: #"{"kind":"system","text":"hi","url":"javascript:alert(1)"}"#)
        #expect(link.status == 400)
        let ghost = try client.request("POST", "/api/v1/users/bob/notifications", json: #"{"kind":"follow","text":"Ghost followed you","actor":"ghost"}"#)
        #expect(ghost.status == 404 && ghost.errorCode == "not_found")
        #expect(try client.request("POST", "/api/v1/users/bob/notifications", json: #"{"kind":"follow","text":"Alice followed you","actor":"alice","url":"herald://notifications"}"#).status == 201)
    }

    @Test("R4: a clientMessageId reused in another conversation is 409 conflict and the first message is untouched")
    func clientMessageIdConflict() throws {
        let server = try InProcessAPIServer()
        defer { server.stop() }
        let client = try APIClient(port: server.port, key: server.key)
        let first = try client.aliceBobDMWithCarolOutside()
        let second = try #require(try client.request("POST", "/api/v1/conversations", json: #"{"kind":"direct","members":["alice","carol"]}"#).object?["id"] as? String)
        #expect(try client.request("POST", "/api/v1/conversations/\(first)/messages", json: #"{"sender":"alice","clientMessageId":"k","text":"one"}"#).status == 201)
        let reused = try client.request("POST", "/api/v1/conversations/\(second)/messages", json: #"{"sender":"alice","clientMessageId":"k","text":"two"}"#)
        #expect(reused.status == 409 && reused.errorCode == "conflict")
        let retry = try client.request("POST", "/api/v1/conversations/\(first)/messages", json: #"{"sender":"alice","clientMessageId":"k","text":"one"}"#)
        #expect(retry.status == 200 && retry.object?["duplicate"] as? Bool == true)
    }
}
