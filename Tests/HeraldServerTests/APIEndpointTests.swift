import Foundation
import HeraldProtocol
@testable import HeraldServer
import HeraldTestSupport
import Testing

/// Every /api/v1 endpoint and every error code, over real sockets against the in-process server.
@Suite("API: endpoints and error codes", .serialized)
struct APIEndpointTests {
    @Test("Users: create (201), repeat with the same name (200), other name (409 conflict), get (200), unknown (404)")
    func users() throws {
        let server = try InProcessAPIServer()
        defer { server.stop() }
        let client = try APIClient(port: server.port, key: server.key)
        let created = try client.request("POST", "/api/v1/users", json: #"{"id":"alice","name":"Alice"}"#)
        #expect(created.status == 201 && created.object?["id"] as? String == "alice" && created.object?["name"] as? String == "Alice")
        #expect(created.header("Content-Type") == "application/json")
        #expect(try client.request("POST", "/api/v1/users", json: #"{"id":"alice","name":"Alice"}"#).status == 200)
        let conflict = try client.request("POST", "/api/v1/users", json: #"{"id":"alice","name":"Mallory"}"#)
        #expect(conflict.status == 409 && conflict.errorCode == "conflict")
        let got = try client.request("GET", "/api/v1/users/alice")
        #expect(got.status == 200 && got.object?["name"] as? String == "Alice")
        let missing = try client.request("GET", "/api/v1/users/nobody")
        #expect(missing.status == 404 && missing.errorCode == "not_found")
    }

    @Test("Tokens: a minted token opens /sync as that user; ttlSeconds is honoured; unknown user 404")
    func tokens() throws {
        let server = try InProcessAPIServer()
        defer { server.stop() }
        let client = try APIClient(port: server.port, key: server.key)
        _ = try client.request("POST", "/api/v1/users", json: #"{"id":"bob","name":"Bob"}"#)
        let minted = try client.request("POST", "/api/v1/users/bob/tokens", json: #"{"ttlSeconds":120}"#)
        #expect(minted.status == 201)
        let expiresAt = try #require(minted.object?["expiresAt"] as? Int)
        let now = Int(Date().timeIntervalSince1970)
        #expect(expiresAt >= now + 118 && expiresAt <= now + 122)
        let token = try #require(minted.object?["token"] as? String)
        let device = try SyncTestClient(port: server.port, token: token)
        #expect(try device.request(#"{"type":"sync"}"#).mode == .snapshot)
        #expect(try client.request("POST", "/api/v1/users/ghost/tokens", json: "{}").status == 404)
        let badTTL = try client.request("POST", "/api/v1/users/bob/tokens", json: #"{"ttlSeconds":0}"#)
        #expect(badTTL.status == 400 && badTTL.errorCode == "bad_request")
    }

    @Test("Conversations: direct created (201) then found (200), group (201); unknown member 404; bad kind 400")
    func conversations() throws {
        let server = try InProcessAPIServer()
        defer { server.stop() }
        let client = try APIClient(port: server.port, key: server.key)
        for user in ["alice", "bob", "carol"] { _ = try client.request("POST", "/api/v1/users", json: #"{"id":"\#(user)","name":"\#(user.capitalized)"}"#) }
        let direct = try client.request("POST", "/api/v1/conversations", json: #"{"kind":"direct","members":["alice","bob"]}"#)
        #expect(direct.status == 201 && direct.object?["kind"] as? String == "direct")
        let again = try client.request("POST", "/api/v1/conversations", json: #"{"kind":"direct","members":["bob","alice"]}"#)
        #expect(again.status == 200 && again.object?["id"] as? String == direct.object?["id"] as? String)
        let group = try client.request("POST", "/api/v1/conversations", json: #"{"kind":"group","title":"Trip","creator":"alice","members":["bob","carol"]}"#)
        #expect(group.status == 201 && group.object?["title"] as? String == "Trip")
        #expect((group.object?["participants"] as? [[String: Any]])?.compactMap { $0["id"] as? String } == ["alice", "bob", "carol"])
        #expect(try client.request("POST", "/api/v1/conversations", json: #"{"kind":"direct","members":["alice","zed"]}"#).status == 404)
        let badKind = try client.request("POST", "/api/v1/conversations", json: #"{"kind":"channel","members":["alice","bob"]}"#)
        #expect(badKind.status == 400 && badKind.errorCode == "bad_request")
        let oneMember = try client.request("POST", "/api/v1/conversations", json: #"{"kind":"direct","members":["alice"]}"#)
        #expect(oneMember.status == 400)
    }

    @Test("R4, R5: messages: 201, a retry is 200 duplicate with the same id; non-participant 403; unknown conversation 404")
    func messages() throws {
        let server = try InProcessAPIServer()
        defer { server.stop() }
        let client = try APIClient(port: server.port, key: server.key)
        for user in ["alice", "bob", "mallory"] { _ = try client.request("POST", "/api/v1/users", json: #"{"id":"\#(user)","name":"\#(user)"}"#) }
        let c = try #require(try client.request("POST", "/api/v1/conversations", json: #"{"kind":"direct","members":["alice","bob"]}"#).object?["id"] as? String)
        let body = #"{"sender":"alice","clientMessageId":"sys-1","text":"Welcome!"}"#
        let first = try client.request("POST", "/api/v1/conversations/\(c)/messages", json: body)
        #expect(first.status == 201 && first.object?["duplicate"] as? Bool == false)
        let message = try #require(first.object?["message"] as? [String: Any])
        #expect(message["text"] as? String == "Welcome!" && message["sender"] as? String == "alice")
        let retry = try client.request("POST", "/api/v1/conversations/\(c)/messages", json: body)
        #expect(retry.status == 200 && retry.object?["duplicate"] as? Bool == true)
        #expect((retry.object?["message"] as? [String: Any])?["id"] as? String == message["id"] as? String)
        let image = try client.request("POST", "/api/v1/conversations/\(c)/messages", json: #"{"sender":"bob","clientMessageId":"i","imageURL":"https://x.test/a.png"}"#)
        #expect(image.status == 201 && (image.object?["message"] as? [String: Any])?["kind"] as? String == "image")
        let intruder = try client.request("POST", "/api/v1/conversations/\(c)/messages", json: #"{"sender":"mallory","clientMessageId":"m","text":"hi"}"#)
        #expect(intruder.status == 403 && intruder.errorCode == "forbidden")
        let nowhere = try client.request("POST", "/api/v1/conversations/c999/messages", json: #"{"sender":"alice","clientMessageId":"n","text":"hi"}"#)
        #expect(nowhere.status == 404 && nowhere.errorCode == "not_found")
        let empty = try client.request("POST", "/api/v1/conversations/\(c)/messages", json: #"{"sender":"alice","clientMessageId":"e"}"#)
        #expect(empty.status == 400 && empty.errorCode == "bad_request")
        // Mallory's attempt stored nothing: Bob has exactly Alice's one message unread.
        let unread = try client.request("GET", "/api/v1/users/bob/unread")
        #expect(unread.object?["badge"] as? Int == 1 && unread.object?["badgeText"] as? String == "1")
    }

    @Test("B1, U1, U5: notifications of every kind raise bellUnread; unread lists per conversation, badge and badgeText")
    func notificationsAndUnread() throws {
        let server = try InProcessAPIServer()
        defer { server.stop() }
        let client = try APIClient(port: server.port, key: server.key)
        for user in ["alice", "bob"] { _ = try client.request("POST", "/api/v1/users", json: #"{"id":"\#(user)","name":"\#(user)"}"#) }
        for (index, kind) in NotificationKind.allCases.enumerated() {
            let created = try client.request("POST", "/api/v1/users/bob/notifications", json: #"{"kind":"\#(kind.rawValue)","text":"n\#(index)","actor":"alice","url":"herald://notifications"}"#)
            #expect(created.status == 201 && created.object?["bellUnread"] as? Int == index + 1)
            #expect((created.object?["notification"] as? [String: Any])?["kind"] as? String == kind.rawValue)
        }
        let badKind = try client.request("POST", "/api/v1/users/bob/notifications", json: #"{"kind":"message","text":"x"}"#)
        #expect(badKind.status == 400, "B1: messages never become bell notifications")
        #expect(try client.request("POST", "/api/v1/users/ghost/notifications", json: #"{"kind":"system","text":"x"}"#).status == 404)
        let c = try #require(try client.request("POST", "/api/v1/conversations", json: #"{"kind":"direct","members":["alice","bob"]}"#).object?["id"] as? String)
        for n in 0..<3 { _ = try client.request("POST", "/api/v1/conversations/\(c)/messages", json: #"{"sender":"alice","clientMessageId":"u\#(n)","text":"\#(n)"}"#) }
        let unread = try client.request("GET", "/api/v1/users/bob/unread")
        #expect(unread.status == 200)
        #expect((unread.object?["conversations"] as? [[String: Any]])?.first?["unread"] as? Int == 3)
        #expect(unread.object?["badge"] as? Int == 3 && unread.object?["badgeText"] as? String == "3")
        #expect(unread.object?["bellUnread"] as? Int == NotificationKind.allCases.count)
        let aliceUnread = try client.request("GET", "/api/v1/users/alice/unread")
        #expect(aliceUnread.object?["badge"] as? Int == 0 && aliceUnread.object?["badgeText"] as? String == "", "S7: own messages are not unread")
        #expect(try client.request("GET", "/api/v1/users/ghost/unread").status == 404)
    }

    @Test("Health needs no key and reports status, connections, uptime and version")
    func health() throws {
        let server = try InProcessAPIServer()
        defer { server.stop() }
        let client = try APIClient(port: server.port, key: nil)
        let health = try client.request("GET", "/api/v1/health")
        #expect(health.status == 200 && health.object?["status"] as? String == "ok")
        #expect((health.object?["connections"] as? Int ?? 0) >= 1 && health.object?["version"] as? String == HeraldRelease.version)
        #expect(health.object?["uptimeSeconds"] as? Int != nil)
    }

    @Test("401 without, with a malformed and with a wrong key (same answer); a key works once created, no restart")
    func unauthorized() throws {
        let server = try InProcessAPIServer()
        defer { server.stop() }
        var wrongSecret = server.key
        wrongSecret.removeLast()
        wrongSecret += server.key.hasSuffix("0") ? "1" : "0"
        for key in [nil, "nonsense", wrongSecret] {
            let response = try APIClient(port: server.port, key: key).request("GET", "/api/v1/users/alice")
            #expect(response.status == 401 && response.errorCode == "unauthorized" && response.header("WWW-Authenticate") == "Bearer")
        }
        let second = try APIKey.create(dbPath: server.databasePath, name: "second")
        #expect(try APIClient(port: server.port, key: second).request("GET", "/api/v1/users/alice").status == 404)
    }

    @Test("400 bad_json for invalid JSON, bad_request for a non-object or a wrong type; 404 unknown path; 405 with Allow")
    func badInput() throws {
        let server = try InProcessAPIServer()
        defer { server.stop() }
        let client = try APIClient(port: server.port, key: server.key)
        let badJSON = try client.request("POST", "/api/v1/users", json: #"{"id":"#)
        #expect(badJSON.status == 400 && badJSON.errorCode == "bad_json")
        #expect(try client.request("POST", "/api/v1/users", json: "[1]").errorCode == "bad_request")
        #expect(try client.request("POST", "/api/v1/users", json: #"{"id":7,"name":"x"}"#).errorCode == "bad_request")
        #expect(try client.request("POST", "/api/v1/users", json: #"{"id":"has space","name":"x"}"#).errorCode == "bad_request")
        #expect(try client.request("GET", "/api/v1/users/a%2Fb/unread").status == 400, "ids with / are refused, not routed")
        let unknown = try client.request("GET", "/api/v1/nothing")
        #expect(unknown.status == 404 && unknown.errorCode == "not_found")
        let wrongMethod = try client.request("DELETE", "/api/v1/users/alice")
        #expect(wrongMethod.status == 405 && wrongMethod.header("Allow") == "GET, HEAD" && wrongMethod.errorCode == "method_not_allowed")
    }

    @Test("429 rate_limited with Retry-After once a key spends its burst")
    func rateLimited() throws {
        let server = try InProcessAPIServer(api: APIOptions(rateLimitPerSecond: 0.5, rateLimitBurst: 3))
        defer { server.stop() }
        let client = try APIClient(port: server.port, key: server.key)
        let statuses = try (0..<5).map { _ in try client.request("GET", "/api/v1/users/alice").status }
        #expect(statuses == [404, 404, 404, 429, 429])
        let limited = try client.request("GET", "/api/v1/users/alice")
        #expect(limited.errorCode == "rate_limited" && Int(limited.header("Retry-After") ?? "") ?? 0 >= 1)
        #expect(try client.request("GET", "/api/v1/health").status == 200, "health is not limited")
    }
}
