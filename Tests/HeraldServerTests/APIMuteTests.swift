import Foundation
@testable import HeraldServer
import HeraldProtocol
import HeraldTestSupport
import Testing

/// N1 through the backend API: an app mutes or unmutes a conversation on behalf of a user, exactly as the user's own
/// `mute` / `unmute` would (every device of the user hears it; unread still counts).
@Suite("API: mute and unmute on behalf of a user", .serialized)
struct APIMuteTests {
    @Test("N1: POST /users/{id}/mutes mutes for the given minutes or until unmuted, the user's device gets the settings event; DELETE unmutes")
    func muteAndUnmute() throws {
        let server = try InProcessAPIServer()
        defer { server.stop() }
        let client = try APIClient(port: server.port, key: server.key)
        let c = try client.aliceBobDMWithCarolOutside()
        let token = try #require(try client.request("POST", "/api/v1/users/bob/tokens", json: "{}").object?["token"] as? String)
        let phone = try SyncTestClient(port: server.port, token: token, device: "bob-phone")
        try phone.request(#"{"type":"sync"}"#)

        let before = Date().timeIntervalSince1970 * 1000
        let muted = try client.request("POST", "/api/v1/users/bob/mutes", json: #"{"conversation":"\#(c)","minutes":60}"#)
        #expect(muted.status == 200)
        #expect(muted.object?["muted"] as? Bool == true)
        let until = try #require((muted.object?["mutedUntil"] as? NSNumber)?.doubleValue)
        #expect(until >= before + 3_600_000 - 1_000 && until <= Date().timeIntervalSince1970 * 1000 + 3_600_000 + 1_000)
        let event = try phone.event { $0.event == .settings }
        #expect(event.conversationId == c && event.muted == true)

        let forever = try client.request("POST", "/api/v1/users/bob/mutes", json: #"{"conversation":"\#(c)"}"#)
        #expect(forever.status == 200 && forever.object?["mutedUntil"] == nil, "no minutes: until unmuted")
        let unmuted = try client.request("DELETE", "/api/v1/users/bob/mutes/\(c)")
        #expect(unmuted.status == 200 && unmuted.object?["muted"] as? Bool == false)
        #expect(try client.request("DELETE", "/api/v1/users/bob/mutes/\(c)").status == 200, "unmuting what is not muted is answered alike")
    }

    @Test("N1, R5: a conversation the user is not in (or that does not exist) is 403, an unknown user 404, bad minutes 400; nothing changes")
    func refusals() throws {
        let server = try InProcessAPIServer()
        defer { server.stop() }
        let client = try APIClient(port: server.port, key: server.key)
        let c = try client.aliceBobDMWithCarolOutside()
        let stranger = try client.request("POST", "/api/v1/users/carol/mutes", json: #"{"conversation":"\#(c)"}"#)
        #expect(stranger.status == 403)
        #expect(try client.request("POST", "/api/v1/users/nobody/mutes", json: #"{"conversation":"\#(c)"}"#).status == 404)
        #expect(try client.request("POST", "/api/v1/users/bob/mutes", json: #"{"conversation":"c999999"}"#).status == 403,
                "R5: a conversation that does not exist looks like one the user is not in")
        for bad in [#"{"conversation":"\#(c)","minutes":0}"#, #"{"conversation":"\#(c)","minutes":1.5}"#, #"{"minutes":5}"#, #"{"conversation":"\#(c)","minutes":525601}"#] {
            #expect(try client.request("POST", "/api/v1/users/bob/mutes", json: bad).status == 400, "\(bad)")
        }
        #expect(try client.request("GET", "/api/v1/users/bob/mutes").status == 405)
        #expect(try client.request("DELETE", "/api/v1/users/carol/mutes/\(c)").status == 403)
        // Nothing was muted by any of it: bob's snapshot says so.
        let token = try #require(try client.request("POST", "/api/v1/users/bob/tokens", json: "{}").object?["token"] as? String)
        let phone = try SyncTestClient(port: server.port, token: token)
        let snapshot = try phone.request(#"{"type":"sync"}"#)
        #expect(snapshot.conversations?.first { $0.id == c }?.muted != true)
    }
}
