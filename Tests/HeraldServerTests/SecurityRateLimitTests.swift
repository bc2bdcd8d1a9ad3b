import Foundation
import HeraldProtocol
@testable import HeraldServer
import HeraldTestSupport
import Testing

/// Every /sync request that writes spends a per-user budget; past it the answer is `rate_limited`, nothing is written
/// and the connection stays open.
@Suite("Security: rate limits on every writing request (binary)", .serialized)
struct SecurityRateLimitTests {
    /// Sends `request(n)` until one is refused; returns how many were accepted first (nil: none refused in `max`).
    static func acceptedBeforeLimit(_ client: SyncTestClient, max: Int, _ request: (Int) -> String) throws -> Int? {
        for n in 0..<max {
            let response = try client.request(request(n))
            if response.error?.code == .rateLimited { return n }
            try #require(response.ok, "request \(n): \(String(describing: response.error))")
        }
        return nil
    }

    @Test("Defaults: of 2,000 follows in a burst at most 120 (B4's own 105 fit) get through, then one a second; the connection stays open")
    func followFloodIsLimited() throws {
        let server = try ServerHarness.start()
        defer { server.stop() }
        let victim = try SyncTestClient(port: server.port, token: try Hardening.token(server, "victim"))
        defer { victim.close() }
        try victim.request(#"{"type":"sync"}"#)
        let friend = try SyncTestClient(port: server.port, token: try Hardening.token(server, "friend"))
        defer { friend.close() }
        try friend.request(#"{"type":"sync"}"#)
        try friend.request(#"{"type":"follow","user":"victim"}"#)
        let attacker = try SyncTestClient(port: server.port, token: try Hardening.token(server, "attacker"))
        defer { attacker.close() }
        try attacker.request(#"{"type":"sync"}"#)
        var limited = 0
        let start = Date()
        for _ in 0..<2_000 where try attacker.request(#"{"type":"follow","user":"victim"}"#).error?.code == .rateLimited { limited += 1 }
        // One a second refills while the flood runs: a loaded machine that takes longer lets that many more through.
        let refilled = Int(Date().timeIntervalSince(start).rounded(.up))
        #expect(limited >= 2_000 - 121 - refilled && limited <= 2_000 - 105, "at most the 120 s burst and \(refilled) s of refill got through: \(2_000 - limited)")
        #expect(try attacker.request(#"{"type":"conversations"}"#).ok, "the connection stays open and reads still work")
    }

    @Test("Each class has its own budget and flag: create (dm, group), social (react), read (ack), scene, send; a refusal writes nothing")
    func everyWritingRequestIsLimited() throws {
        let server = try ServerHarness.start([
            "--sync-create-rate", "1", "--sync-social-rate", "1", "--sync-read-rate", "1", "--sync-scene-rate", "1", "--sync-send-rate", "2",
        ])
        defer { server.stop() }
        let users = (0..<20).map { "u\($0)" }
        for user in users { _ = try Hardening.token(server, user) }
        let alice = try SyncTestClient(port: server.port, token: try Hardening.token(server, "alice"))
        defer { alice.close() }
        try alice.request(#"{"type":"sync"}"#)
        // create: burst 15 s at 1/s.
        let created = try Self.acceptedBeforeLimit(alice, max: 40) { n in
            n % 2 == 0 ? #"{"type":"dm","user":"u\#(n / 2)"}"# : #"{"type":"group","title":"g\#(n)","members":["u1"]}"#
        }
        #expect(created.map { (14...16).contains($0) } == true, "\(String(describing: created))")
        #expect(try alice.request(#"{"type":"conversations"}"#).conversations?.count == created, "the refused ones were not stored")
        // send: burst twice the rate.
        let c = try #require(try alice.request(#"{"type":"conversations"}"#).conversations?.first?.id)
        let sent = try Self.acceptedBeforeLimit(alice, max: 20) { #"{"type":"send","conversation":"\#(c)","clientMessageId":"s\#($0)","text":"hi"}"# }
        #expect(sent.map { (3...5).contains($0) } == true, "\(String(describing: sent))")
        let message = try #require(try alice.request(#"{"type":"history","conversation":"\#(c)"}"#).messages?.first?.id)
        // social, read, scene: 120 s, 10 s, 10 s worth at 1/s.
        let reacted = try Self.acceptedBeforeLimit(alice, max: 140) { _ in #"{"type":"react","message":"\#(message)","emoji":"👍"}"# }
        #expect(reacted.map { (119...121).contains($0) } == true, "\(String(describing: reacted))")
        let acked = try Self.acceptedBeforeLimit(alice, max: 40) { _ in #"{"type":"ack","messages":["\#(message)"]}"# }
        #expect(acked.map { (9...11).contains($0) } == true, "\(String(describing: acked))")
        let scenes = try Self.acceptedBeforeLimit(alice, max: 40) { n in n % 2 == 0 ? #"{"type":"scene","scene":"list"}"# : #"{"type":"scene","scene":"notifications"}"# }
        #expect(scenes.map { (9...11).contains($0) } == true, "\(String(describing: scenes))")
        let refused = try alice.request(#"{"type":"dm","user":"u19"}"#)
        #expect(refused.error?.code == .rateLimited && refused.error?.message.contains("retry in") == true)
        #expect(server.isRunning)
    }
}
