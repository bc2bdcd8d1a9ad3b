import Foundation
import HeraldProtocol
@testable import HeraldServer
import HeraldTestSupport
import Testing

/// What the API writes reaches connected herald.v1 clients exactly like a client's own request would.
@Suite("API: fan-out to /sync devices", .serialized)
struct APIRealtimeTests {
    @Test("R1, R4: a message posted through the API reaches every device of every participant once; a retry sends nothing")
    func messageReachesSyncClients() throws {
        let server = try InProcessAPIServer()
        defer { server.stop() }
        let api = try APIClient(port: server.port, key: server.key)
        for user in ["alice", "bob"] { _ = try api.request("POST", "/api/v1/users", json: #"{"id":"\#(user)","name":"\#(user.capitalized)"}"#) }
        let bob1 = try SyncTestClient(port: server.port, token: server.token("bob"))
        let bob2 = try SyncTestClient(port: server.port, token: server.token("bob"))
        let alice = try SyncTestClient(port: server.port, token: server.token("alice"))
        for device in [bob1, bob2, alice] { try device.request(#"{"type":"sync"}"#) }
        let created = try api.request("POST", "/api/v1/conversations", json: #"{"kind":"direct","members":["alice","bob"]}"#)
        let c = try #require(created.object?["id"] as? String)
        for device in [bob1, bob2, alice] { #expect(try device.event { $0.event == .conversation }.conversation?.id == c) }
        let body = #"{"sender":"alice","clientMessageId":"api-1","text":"from the backend"}"#
        let posted = try api.request("POST", "/api/v1/conversations/\(c)/messages", json: body)
        let id = try #require((posted.object?["message"] as? [String: Any])?["id"] as? String)
        for device in [bob1, bob2, alice] {
            let event = try device.event { $0.event == .message }
            #expect(event.message?.id == id && event.message?.text == "from the backend" && event.message?.senderName == "Alice")
        }
        #expect(try api.request("POST", "/api/v1/conversations/\(c)/messages", json: body).status == 200)
        #expect(bob1.settle(milliseconds: 300).filter { $0.event == .message }.isEmpty, "R4: the retry is not fanned out again")
        // The device's own view agrees with the API's unread summary.
        #expect(try bob2.request(#"{"type":"conversations"}"#).unread == [c: 1])
    }

    @Test("B1-B3: a notification created through the API appears as a bell event on all the user's devices, and only theirs")
    func notificationIsABellEvent() throws {
        let server = try InProcessAPIServer()
        defer { server.stop() }
        let api = try APIClient(port: server.port, key: server.key)
        for user in ["alice", "bob"] { _ = try api.request("POST", "/api/v1/users", json: #"{"id":"\#(user)","name":"\#(user)"}"#) }
        let phone = try SyncTestClient(port: server.port, token: server.token("bob"), device: "phone")
        let laptop = try SyncTestClient(port: server.port, token: server.token("bob"), device: "laptop")
        let other = try SyncTestClient(port: server.port, token: server.token("alice"))
        for device in [phone, laptop, other] { try device.request(#"{"type":"sync"}"#) }
        let created = try api.request("POST", "/api/v1/users/bob/notifications", json: #"{"kind":"reminder","text":"Stand-up in 5","url":"herald://notifications"}"#)
        #expect(created.status == 201)
        let id = try #require((created.object?["notification"] as? [String: Any])?["id"] as? String)
        for device in [phone, laptop] {
            let bell = try device.event { $0.event == .bell }
            #expect(bell.action == .created && bell.notification?.id == id && bell.notification?.kind == .reminder)
            #expect(bell.notification?.text == "Stand-up in 5" && bell.bellUnread == 1 && bell.seq != nil)
        }
        #expect(other.settle(milliseconds: 200).isEmpty, "R5: nobody else hears of it")
        // A device connecting later finds it in its snapshot (R3).
        let later = try SyncTestClient(port: server.port, token: server.token("bob"))
        let snapshot = try later.request(#"{"type":"sync"}"#)
        #expect(snapshot.notifications?.first?.id == id && snapshot.bellUnread == 1)
    }
}
