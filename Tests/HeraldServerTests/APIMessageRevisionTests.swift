import Foundation
@testable import HeraldServer
import HeraldTestSupport
import Testing

/// M1 and M2 through the backend API: an app edits or unsends on behalf of a message's sender, under the same rules
/// as the sender's own requests.
@Suite("API: edit and unsend on behalf of the sender", .serialized)
struct APIMessageRevisionTests {
    /// A server with alice and bob in a direct conversation, and alice's message in it.
    static func setUp() throws -> (InProcessAPIServer, APIClient, message: String) {
        let server = try InProcessAPIServer()
        let client = try APIClient(port: server.port, key: server.key)
        for user in ["alice", "bob"] { _ = try client.request("POST", "/api/v1/users", json: #"{"id":"\#(user)","name":"\#(user.capitalized)"}"#) }
        let c = try #require(try client.request("POST", "/api/v1/conversations", json: #"{"kind":"direct","members":["alice","bob"]}"#).object?["id"] as? String)
        let posted = try client.request("POST", "/api/v1/conversations/\(c)/messages", json: #"{"sender":"alice","clientMessageId":"k1","text":"see you at 5"}"#)
        let message = try #require((posted.object?["message"] as? [String: Any])?["id"] as? String)
        return (server, client, message)
    }

    @Test("M1: PATCH /messages/{id} edits as the sender: 200 with the edited message; a retry is answered alike; bob may not")
    func edit() throws {
        let (server, client, m) = try Self.setUp()
        defer { server.stop() }
        let edited = try client.request("PATCH", "/api/v1/messages/\(m)", json: #"{"user":"alice","text":"see you at 6"}"#)
        #expect(edited.status == 200)
        let message = edited.object?["message"] as? [String: Any]
        #expect(message?["text"] as? String == "see you at 6")
        #expect(message?["edited"] as? Bool == true)
        #expect(message?["editedAt"] is NSNumber)
        #expect(try client.request("PATCH", "/api/v1/messages/\(m)", json: #"{"user":"alice","text":"see you at 6"}"#).status == 200)
        let stranger = try client.request("PATCH", "/api/v1/messages/\(m)", json: #"{"user":"bob","text":"hijacked"}"#)
        #expect(stranger.status == 403 && stranger.errorCode == "forbidden")
        #expect(try client.request("PATCH", "/api/v1/messages/\(m)", json: #"{"user":"alice","text":""}"#).status == 400)
        #expect(try client.request("PATCH", "/api/v1/messages/m999999", json: #"{"user":"alice","text":"x"}"#).status == 404)
        #expect(try client.request("PATCH", "/api/v1/messages/%20", json: #"{"user":"alice","text":"x"}"#).status == 404)
        #expect(try client.request("GET", "/api/v1/messages/\(m)").status == 405)
        for round in 2...5 {
            #expect(try client.request("PATCH", "/api/v1/messages/\(m)", json: #"{"user":"alice","text":"round \#(round)"}"#).status == 200)
        }
        let sixth = try client.request("PATCH", "/api/v1/messages/\(m)", json: #"{"user":"alice","text":"round 6"}"#)
        #expect(sixth.status == 409 && sixth.errorCode == "too_many_edits")
    }

    @Test("M1: an image message cannot be edited: 409 conflict with the reason, the message unchanged")
    func editingAnImageIsAConflict() throws {
        let (server, client, _) = try Self.setUp()
        defer { server.stop() }
        let c = try #require(try client.request("POST", "/api/v1/conversations", json: #"{"kind":"direct","members":["alice","bob"]}"#).object?["id"] as? String)
        let posted = try client.request("POST", "/api/v1/conversations/\(c)/messages", json: #"{"sender":"alice","clientMessageId":"k2","imageURL":"https://example.org/cat.png"}"#)
        let image = try #require((posted.object?["message"] as? [String: Any])?["id"] as? String)
        let edit = try client.request("PATCH", "/api/v1/messages/\(image)", json: #"{"user":"alice","text":"a caption"}"#)
        #expect(edit.status == 409 && edit.errorCode == "conflict", "\(edit.body)")
        #expect(edit.body.contains("only a text message can be edited"))
    }

    @Test("M2: POST /messages/{id}/unsend as the sender: 200 with the placeholder; bob may not; bob's unread goes back down")
    func unsend() throws {
        let (server, client, m) = try Self.setUp()
        defer { server.stop() }
        #expect(try client.request("GET", "/api/v1/users/bob/unread").object?["badge"] as? Int == 1)
        let stranger = try client.request("POST", "/api/v1/messages/\(m)/unsend", json: #"{"user":"bob"}"#)
        #expect(stranger.status == 403 && stranger.errorCode == "forbidden")
        let unsent = try client.request("POST", "/api/v1/messages/\(m)/unsend", json: #"{"user":"alice"}"#)
        #expect(unsent.status == 200)
        let message = unsent.object?["message"] as? [String: Any]
        #expect(message?["unsent"] as? Bool == true)
        #expect(message?["text"] == nil)
        #expect(try client.request("GET", "/api/v1/users/bob/unread").object?["badge"] as? Int == 0)
        #expect(try client.request("POST", "/api/v1/messages/\(m)/unsend", json: #"{"user":"alice"}"#).status == 200, "a retry is answered alike")
        let edit = try client.request("PATCH", "/api/v1/messages/\(m)", json: #"{"user":"alice","text":"back"}"#)
        #expect(edit.status == 409 && edit.errorCode == "conflict", "an unsent message cannot be edited: a state conflict")
        #expect(edit.body.contains("unsent"))
        #expect(try client.request("POST", "/api/v1/messages/\(m)/unsend", json: #"{}"#).status == 400)
    }
}
