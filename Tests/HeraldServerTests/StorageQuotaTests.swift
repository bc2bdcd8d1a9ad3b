import Foundation
import HeraldProtocol
import HeraldTestSupport
import Testing

/// `--user-daily-quota-bytes` on the real binary (SQLite): one account cannot store more message content per UTC day than the
/// quota, over /sync or the API; past it `send` and `message.edit` are `quota_exceeded` (API: 429 with Retry-After)
/// and nothing is stored; other users and retries of stored messages are unaffected.
@Suite("Storage quota: bytes of message content per user per day", .serialized)
struct StorageQuotaTests {
    static func text(_ count: Int, _ letter: Character = "a") -> String { String(repeating: letter, count: count) }

    @Test("/sync: sends stop at the quota with quota_exceeded and are not stored; retries and another user still work; edits are charged")
    func syncSendsStopAtTheQuota() throws {
        let server = try ServerHarness.start(["--user-daily-quota-bytes", "1000"])
        defer { server.stop() }
        let alice = try SyncTestClient(port: server.port, token: try Hardening.token(server, "alice"))
        defer { alice.close() }
        let bob = try SyncTestClient(port: server.port, token: try Hardening.token(server, "bob"))
        defer { bob.close() }
        try alice.request(#"{"type":"sync"}"#)
        try bob.request(#"{"type":"sync"}"#)
        let conversation = try #require(try alice.request(#"{"type":"dm","user":"bob"}"#).conversation?.id)
        func send(_ client: SyncTestClient, _ id: String, _ text: String) throws -> ResponseFrame {
            try client.request(#"{"type":"send","conversation":"\#(conversation)","clientMessageId":"\#(id)","text":"\#(text)"}"#)
        }

        #expect(try send(alice, "a1", Self.text(450)).ok)
        let second = try send(alice, "a2", Self.text(450))
        #expect(second.ok)
        let refused = try send(alice, "a3", Self.text(450))
        #expect(refused.error?.code == .quotaExceeded, "\(String(describing: refused.error))")
        #expect(refused.error?.message.contains("quota") == true)
        #expect(try send(alice, "a2", Self.text(450)).duplicate == true, "a retry of a stored message stores nothing and costs nothing")
        #expect(try send(bob, "b1", Self.text(900)).ok, "another user has their own allowance")

        // 100 bytes are left: an edit that adds 101 is refused and leaves the text as it was; one of 90 fits.
        let messageId = try #require(second.message?.id)
        let tooLong = try alice.request(#"{"type":"message.edit","message":"\#(messageId)","text":"\#(Self.text(101, "b"))"}"#)
        #expect(tooLong.error?.code == .quotaExceeded)
        #expect(try alice.request(#"{"type":"message.edit","message":"\#(messageId)","text":"\#(Self.text(90, "c"))"}"#).ok)

        let history = try alice.request(#"{"type":"history","conversation":"\#(conversation)","limit":50}"#).messages ?? []
        #expect(Set(history.map(\.clientMessageId)) == ["a1", "a2", "b1"], "the refused send was not stored")
        #expect(history.first { $0.clientMessageId == "a2" }?.text == Self.text(90, "c"), "the refused edit changed nothing")
        #expect(server.isRunning)
    }

    @Test("API: a message past the sender's quota is 429 quota_exceeded with Retry-After, nothing stored")
    func apiPostStopsAtTheQuota() throws {
        let server = try ServerHarness.start(["--user-daily-quota-bytes", "500", "--api-rate-limit", "0"])
        defer { server.stop() }
        let (_, keyOutput) = try APIOpenAPITests.run(["apikey", "create", "--db", server.databasePath])
        let api = try APIClient(port: server.port, key: keyOutput.trimmingCharacters(in: .whitespacesAndNewlines))
        for user in ["alice", "bob"] {
            #expect(try api.request("POST", "/api/v1/users", json: #"{"id":"\#(user)","name":"\#(user.capitalized)"}"#).status == 201)
        }
        let created = try api.request("POST", "/api/v1/conversations", json: #"{"kind":"direct","members":["alice","bob"]}"#)
        let conversation = try #require(created.object?["id"] as? String)
        func post(_ id: String, _ text: String) throws -> APIResponse {
            try api.request("POST", "/api/v1/conversations/\(conversation)/messages", json: #"{"sender":"alice","clientMessageId":"\#(id)","text":"\#(text)"}"#)
        }
        #expect(try post("m1", Self.text(400)).status == 201)
        let refused = try post("m2", Self.text(400))
        #expect(refused.status == 429, "\(refused.body)")
        #expect((refused.object?["error"] as? [String: Any])?["code"] as? String == "quota_exceeded")
        let retryAfter = try #require(refused.header("Retry-After").flatMap { Int($0) })
        #expect((1...86_400).contains(retryAfter))
        #expect(try post("m1", Self.text(400)).status == 200, "a retry of the stored message is answered as before")

        let bob = try SyncTestClient(port: server.port, token: try Hardening.token(server, "bob"))
        defer { bob.close() }
        try bob.request(#"{"type":"sync"}"#)
        let history = try bob.request(#"{"type":"history","conversation":"\#(conversation)","limit":50}"#).messages ?? []
        #expect(history.map(\.clientMessageId) == ["m1"])
    }
}

/// The quota is counted in the shared PostgreSQL store: two nodes give one user one allowance, not one each.
@Suite("Storage quota on several nodes", .serialized, .enabled(if: PostgresCluster.binariesAvailable, PostgresCluster.skipReason))
struct StorageQuotaMultiNodeTests {
    @Test("Sends on node A and node B draw on the same daily allowance; past it either node answers quota_exceeded")
    func nodesShareTheAllowance() throws {
        let url = try PostgresCluster.newDatabase()
        let a = try ServerHarness.start(["--store", url, "--user-daily-quota-bytes", "1000"])
        defer { a.stop() }
        let b = try ServerHarness.start(["--store", url, "--user-daily-quota-bytes", "1000"])
        defer { b.stop() }
        _ = try ServerHarness.token("bob", store: url)
        let token = try ServerHarness.token("alice", store: url)
        let onA = try SyncTestClient(port: a.port, token: token, device: "phone")
        defer { onA.close() }
        let onB = try SyncTestClient(port: b.port, token: token, device: "laptop")
        defer { onB.close() }
        try onA.request(#"{"type":"sync"}"#)
        try onB.request(#"{"type":"sync"}"#)
        let conversation = try #require(try onA.request(#"{"type":"dm","user":"bob"}"#).conversation?.id)
        func send(_ client: SyncTestClient, _ id: String) throws -> ResponseFrame {
            try client.request(#"{"type":"send","conversation":"\#(conversation)","clientMessageId":"\#(id)","text":"\#(StorageQuotaTests.text(450))"}"#)
        }
        #expect(try send(onA, "a1").ok)
        #expect(try send(onB, "b1").ok)
        #expect(try send(onA, "a2").error?.code == .quotaExceeded)
        #expect(try send(onB, "b2").error?.code == .quotaExceeded)
    }
}
