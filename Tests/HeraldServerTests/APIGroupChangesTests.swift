import Foundation
import HeraldProtocol
@testable import HeraldServer
import HeraldTestSupport
import Testing

/// The backend renames a group and adds members on behalf of a participant, exactly as that participant's own requests.
@Suite("API: renaming a group and adding members (G1, G2)", .serialized)
struct APIGroupChangesTests {
    @Test("PATCH /conversations/{id} and POST /conversations/{id}/members: 200 with the group; a member's device gets the change and the system line; a non-member 403, a DM 409, an unknown user 404, a bad title 400; a read-only route is refused")
    func renameAndAdd() throws {
        let server = try InProcessAPIServer()
        defer { server.stop() }
        let api = try APIClient(port: server.port, key: server.key)
        for user in ["alice", "bob", "carol"] { _ = try api.request("POST", "/api/v1/users", json: #"{"id":"\#(user)","name":"\#(user.capitalized)"}"#) }
        let group = try api.request("POST", "/api/v1/conversations", json: #"{"kind":"group","title":"T","creator":"alice","members":["bob"]}"#)
        let g = try #require(group.object?["id"] as? String)
        let bob = try SyncTestClient(port: server.port, token: try server.token("bob"))
        defer { bob.close() }
        try bob.request(#"{"type":"sync"}"#)

        let renamed = try api.request("PATCH", "/api/v1/conversations/\(g)", json: #"{"user":"alice","title":"Team B"}"#)
        #expect(renamed.status == 200 && renamed.object?["title"] as? String == "Team B", "\(renamed.body)")
        #expect(try bob.event { $0.event == .groupChanged }.conversation?.title == "Team B")
        #expect(try bob.event { $0.event == .message }.message?.text == "Alice renamed the group to Team B")

        let added = try api.request("POST", "/api/v1/conversations/\(g)/members", json: #"{"user":"bob","member":"carol"}"#)
        #expect(added.status == 200, "\(added.body)")
        #expect(((added.object?["participants"] as? [[String: Any]]) ?? []).compactMap { $0["id"] as? String } == ["alice", "bob", "carol"])
        let line = try bob.event { $0.event == .message }.message
        #expect(line?.kind == .system && line?.text == "Bob added Carol")

        #expect(try api.request("PATCH", "/api/v1/conversations/\(g)", json: #"{"user":"nobody","title":"X"}"#).status == 404)
        let dm = try #require(try api.request("POST", "/api/v1/conversations", json: #"{"kind":"direct","members":["alice","carol"]}"#).object?["id"] as? String)
        #expect(try api.request("PATCH", "/api/v1/conversations/\(dm)", json: #"{"user":"alice","title":"X"}"#).status == 409)
        #expect(try api.request("POST", "/api/v1/conversations/\(dm)/members", json: #"{"user":"alice","member":"bob"}"#).status == 409)
        _ = try api.request("POST", "/api/v1/conversations/\(g)/leave", json: #"{"user":"carol"}"#)
        #expect(try api.request("POST", "/api/v1/conversations/\(g)/members", json: #"{"user":"carol","member":"carol"}"#).status == 403, "R5: carol is out")
        #expect(try api.request("POST", "/api/v1/conversations/\(g)/members", json: #"{"user":"alice","member":"zed"}"#).status == 404)
        #expect(try api.request("PATCH", "/api/v1/conversations/\(g)", json: #"{"user":"alice","title":"a\u202Eb"}"#).status == 400)
        #expect(try api.request("GET", "/api/v1/conversations/\(g)").status == 405)
    }
}
