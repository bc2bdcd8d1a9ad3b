import Foundation
import HeraldProtocol
@testable import HeraldServer
import HeraldTestSupport
import Testing

/// The backend can take a member out of a group (a ban, a moderation decision), exactly as the member leaving.
@Suite("API: removing a member from a group", .serialized)
struct APIGroupMembershipTests {
    @Test("POST /conversations/{id}/leave {user}: 200, the member's device gets left and no later message; DM 409 (a state conflict), a non-member 403, unknown conversation 404")
    func backendRemovesAMember() throws {
        let server = try InProcessAPIServer()
        defer { server.stop() }
        let api = try APIClient(port: server.port, key: server.key)
        for user in ["alice", "bob", "carol"] { _ = try api.request("POST", "/api/v1/users", json: #"{"id":"\#(user)","name":"\#(user.capitalized)"}"#) }
        let group = try api.request("POST", "/api/v1/conversations", json: #"{"kind":"group","title":"T","creator":"alice","members":["bob","carol"]}"#)
        let g = try #require(group.object?["id"] as? String)
        let bob = try SyncTestClient(port: server.port, token: try server.token("bob"))
        defer { bob.close() }
        try bob.request(#"{"type":"sync"}"#)

        let removed = try api.request("POST", "/api/v1/conversations/\(g)/leave", json: #"{"user":"bob"}"#)
        #expect(removed.status == 200 && removed.object?["user"] as? String == "bob")
        let left = try bob.event { $0.event == .left }
        #expect(left.conversationId == g && left.user == "bob")
        #expect(try api.request("POST", "/api/v1/conversations/\(g)/messages", json: #"{"sender":"alice","clientMessageId":"x","text":"after"}"#).status == 201)
        #expect(bob.settle(milliseconds: 300).allSatisfy { $0.event != .message }, "nothing reaches a removed member")
        #expect(try bob.request(#"{"type":"conversations"}"#).conversations?.map(\.id).contains(g) == false)

        #expect(try api.request("POST", "/api/v1/conversations/\(g)/leave", json: #"{"user":"bob"}"#).status == 403)
        let dm = try #require(try api.request("POST", "/api/v1/conversations", json: #"{"kind":"direct","members":["alice","carol"]}"#).object?["id"] as? String)
        let directLeft = try api.request("POST", "/api/v1/conversations/\(dm)/leave", json: #"{"user":"carol"}"#)
        #expect(directLeft.status == 409 && (directLeft.object?["error"] as? [String: Any])?["code"] as? String == "conflict", "\(directLeft.body)")
        #expect(directLeft.body.contains("only a group can be left"))
        #expect(try api.request("POST", "/api/v1/conversations/c999/leave", json: #"{"user":"carol"}"#).status == 404)
    }
}
