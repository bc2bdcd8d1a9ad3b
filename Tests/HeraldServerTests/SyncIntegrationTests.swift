import Foundation
import HeraldProtocol
import HeraldStore
@testable import HeraldServer
import HeraldTestSupport
import Testing

/// Several users and devices over real sockets, against HeraldHTTPServer + SyncService in this process.
@Suite("Sync over sockets (in-process server)", .serialized)
struct SyncIntegrationTests {
    @Test("R1, U4, U6: a message reaches every device of every participant; a read on one device updates the others and the sender")
    func fanOutAndRead() throws {
        let server = try InProcessSyncServer()
        defer { server.stop() }
        let alice1 = try SyncTestClient(port: server.port, token: server.token("alice"))
        let alice2 = try SyncTestClient(port: server.port, token: server.token("alice"))
        let bob1 = try SyncTestClient(port: server.port, token: server.token("bob"))
        let bob2 = try SyncTestClient(port: server.port, token: server.token("bob"))
        let carol = try SyncTestClient(port: server.port, token: server.token("carol"))
        for client in [alice1, alice2, bob1, bob2, carol] { #expect(try client.request(#"{"type":"sync"}"#).mode == .snapshot) }
        let c = try #require(try alice1.request(#"{"type":"dm","user":"bob"}"#).conversation?.id)
        let started = syncTestNow()
        let sent = try #require(try alice1.request(#"{"type":"send","conversation":"\#(c)","clientMessageId":"a-1","text":"hi"}"#).message)
        for client in [alice1, alice2, bob1, bob2] {
            let event = try client.event { $0.event == .message }
            #expect(event.message?.id == sent.id)
        }
        #expect(syncTestNow() - started < 1_000, "R1: well under a second")
        let ack = try bob1.request(#"{"type":"ack","messages":["\#(sent.id)"]}"#)
        #expect(ack.read == [sent.id])
        let read = try bob2.event { $0.event == .read }
        #expect(read.unread == [c: 0] && read.badge == 0 && read.seq == ack.latest)
        let receipt = try alice2.event { $0.event == .receipt }
        #expect(receipt.reader == "bob" && receipt.messageId == sent.id)
        #expect(carol.settle(milliseconds: 200).isEmpty, "R5: carol sees nothing")
    }

    @Test("R3: a device offline during 100 inserts resumes from its cursor and gets all 100 in order, once")
    func offlineHundred() throws {
        let server = try InProcessSyncServer()
        defer { server.stop() }
        let alice = try SyncTestClient(port: server.port, token: server.token("alice"))
        try alice.request(#"{"type":"sync"}"#)
        var bob = try SyncTestClient(port: server.port, token: server.token("bob"))
        try bob.request(#"{"type":"sync"}"#)
        let c = try #require(try alice.request(#"{"type":"dm","user":"bob"}"#).conversation?.id)
        let cursor = try #require(try bob.event { $0.event == .conversation }.seq)
        bob.close()
        var ids: [String] = []
        for n in 0..<100 {
            ids.append(try #require(try alice.request(#"{"type":"send","conversation":"\#(c)","clientMessageId":"o-\#(n)","text":"\#(n)"}"#).message?.id))
        }
        bob = try SyncTestClient(port: server.port, token: server.token("bob"))
        let resumed = try bob.request(#"{"type":"sync","after":\#(cursor)}"#)
        #expect(resumed.mode == .resume)
        let replayed = bob.events
        #expect(replayed.compactMap(\.message?.id) == ids)
        #expect(replayed.compactMap(\.seq) == Array((cursor + 1)...(cursor + 100)))
        _ = try alice.request(#"{"type":"send","conversation":"\#(c)","clientMessageId":"o-live","text":"live"}"#)
        _ = bob.settle(milliseconds: 300)
        let live = bob.log.compactMap { frame -> String? in if case .event(let e) = frame { e.message?.clientMessageId } else { nil } }
        #expect(live.filter { $0 == "o-live" }.count == 1)
        #expect(Set(live).count == live.count, "nothing twice")
    }

    @Test("R5: every request type on a conversation the user is not in is refused and leaks nothing")
    func foreign() throws {
        let server = try InProcessSyncServer()
        defer { server.stop() }
        let alice = try SyncTestClient(port: server.port, token: server.token("alice"))
        let bob = try SyncTestClient(port: server.port, token: server.token("bob"))
        let mallory = try SyncTestClient(port: server.port, token: server.token("mallory"))
        for client in [alice, bob, mallory] { try client.request(#"{"type":"sync"}"#) }
        let c = try #require(try alice.request(#"{"type":"dm","user":"bob"}"#).conversation?.id)
        let m = try #require(try alice.request(#"{"type":"send","conversation":"\#(c)","clientMessageId":"s","text":"secret"}"#).message?.id)
        let history = try mallory.request(#"{"type":"history","conversation":"\#(c)"}"#)
        #expect(history.error?.code == .notParticipant && history.messages == nil)
        #expect(try mallory.request(#"{"type":"history","conversation":"c4242"}"#).error == history.error)
        let send = try mallory.request(#"{"type":"send","conversation":"\#(c)","clientMessageId":"x","text":"intrude"}"#)
        #expect(send.error?.code == .notParticipant)
        #expect(try mallory.request(#"{"type":"ack","messages":["\#(m)"]}"#).read == [])
        let react = try mallory.request(#"{"type":"react","message":"\#(m)","emoji":"x"}"#)
        #expect(react.error?.code == .notFound && react.notification == nil)
        #expect(try mallory.request(#"{"type":"conversations"}"#).conversations == [])
        try mallory.request(#"{"type":"scene","scene":"thread","conversation":"\#(c)"}"#)
        #expect(mallory.settle(milliseconds: 200).isEmpty)
        let bobSees = bob.settle(milliseconds: 200)
        #expect(bobSees.allSatisfy { $0.event == .message || $0.event == .conversation }, "no read/receipt caused by mallory")
        #expect(try bob.request(#"{"type":"conversations"}"#).unread == [c: 1])
    }

    @Test("malformed, unknown, oversized and wrong-type requests get errors and the connection stays usable")
    func badRequests() throws {
        let server = try InProcessSyncServer()
        defer { server.stop() }
        let alice = try SyncTestClient(port: server.port, token: server.token("alice"))
        #expect(try alice.request(#"{"type":"conversations"}"#).error?.code == .badState)
        try alice.request(#"{"type":"sync"}"#)
        try alice.sendRaw("{{{ not json")
        #expect(try alice.response(id: nil).error?.code == .badJSON)
        #expect(try alice.request(#"{"type":"launch_missiles"}"#).error?.code == .unknownType)
        #expect(try alice.request(#"{"type":"dm","user":"\#(String(repeating: "u", count: 500))"}"#).error?.code == .tooLarge)
        #expect(try alice.request(#"{"type":"history","conversation":["c1"]}"#).error?.code == .badRequest)
        #expect(try alice.request(#"{"type":"dm","user":"nobody"}"#).error?.code == .unknownUser)
        #expect(try alice.request(#"{"type":"conversations"}"#).ok, "still usable")
    }

    @Test("P1-P5 over sockets: the background device gets the push after the grace period and loses it when another device reads")
    func push() throws {
        let server = try InProcessSyncServer(pushGraceSeconds: 0.2)
        defer { server.stop() }
        let alice = try SyncTestClient(port: server.port, token: server.token("alice"))
        let phone = try SyncTestClient(port: server.port, token: server.token("bob"), device: "phone")
        let laptop = try SyncTestClient(port: server.port, token: server.token("bob"), device: "laptop")
        for client in [alice, phone, laptop] { try client.request(#"{"type":"sync"}"#) }
        let c = try #require(try alice.request(#"{"type":"dm","user":"bob"}"#).conversation?.id)
        try phone.request(#"{"type":"scene","scene":"background"}"#)
        try laptop.request(#"{"type":"scene","scene":"tab","tab":"settings"}"#)
        let m = try #require(try alice.request(#"{"type":"send","conversation":"\#(c)","clientMessageId":"p1","text":"ping"}"#).message)
        let push = try #require(try phone.event { $0.event == .push }.push)
        #expect(push.message == m.id && push.title == "Alice" && push.preview == "ping")
        try laptop.request(#"{"type":"ack","messages":["\#(m.id)"]}"#)
        let cleared = try phone.event { $0.event == .pushCleared }
        #expect(cleared.messageId == m.id)
        #expect(laptop.settle(milliseconds: 400).allSatisfy { $0.event != .push }, "P3: no push to a foreground device")
        // S1: while the laptop views c, nothing is pushed.
        try laptop.request(#"{"type":"scene","scene":"thread","conversation":"\#(c)","atBottom":true}"#)
        try alice.request(#"{"type":"send","conversation":"\#(c)","clientMessageId":"p2","text":"seen"}"#)
        #expect(phone.settle(milliseconds: 500).allSatisfy { $0.event != .push })
    }

    @Test("B3 over sockets: follow creates a bell notification on all the user's devices; read syncs within a second")
    func bell() throws {
        let server = try InProcessSyncServer()
        defer { server.stop() }
        let alice = try SyncTestClient(port: server.port, token: server.token("alice"))
        let bob1 = try SyncTestClient(port: server.port, token: server.token("bob"))
        let bob2 = try SyncTestClient(port: server.port, token: server.token("bob"))
        for client in [alice, bob1, bob2] { try client.request(#"{"type":"sync"}"#) }
        let n = try #require(try alice.request(#"{"type":"follow","user":"bob"}"#).notification)
        for client in [bob1, bob2] {
            let created = try client.event { $0.event == .bell }
            #expect(created.notification?.text == "Alice followed you" && created.bellUnread == 1)
        }
        try bob1.request(#"{"type":"bell.read","notification":"\#(n.id)"}"#)
        let read = try bob2.event(timeoutMilliseconds: 1_000) { $0.event == .bell }
        #expect(read.action == .read && read.bellUnread == 0)
    }

    @Test("auth: no token, a bad token or an expired token gets 401; herald.v1 is selected; tokens issued while running work")
    func upgradeAuth() throws {
        let server = try InProcessSyncServer()
        defer { server.stop() }
        for headers in [[], [("Authorization", "Bearer nope")]] as [[(String, String)]] {
            let raw = try RawWebSocketClient(port: server.port)
            try raw.send(RawWebSocketClient.upgradeRequest(path: "/sync", extraHeaders: headers).bytes)
            #expect(try raw.readHTTPResponse().status == 401)
        }
        let expired = JSONWebToken.sign(
            TokenClaims(sub: "alice", name: "Alice", iat: 1, exp: 2),
            secret: try #require(try SQLiteStore(path: server.databasePath).secret()))
        let late = try RawWebSocketClient(port: server.port)
        try late.send(RawWebSocketClient.upgradeRequest(path: "/sync?token=\(expired)").bytes)
        #expect(try late.readHTTPResponse().status == 401)
        let good = try RawWebSocketClient(port: server.port)
        try good.send(RawWebSocketClient.upgradeRequest(
            path: "/sync", extraHeaders: [("Authorization", "Bearer \(server.token("newcomer"))"), ("Sec-WebSocket-Protocol", "herald.v1")]).bytes)
        let response = try good.readHTTPResponse()
        #expect(response.status == 101)
        #expect(response.header("Sec-WebSocket-Protocol") == "herald.v1")
    }
}
