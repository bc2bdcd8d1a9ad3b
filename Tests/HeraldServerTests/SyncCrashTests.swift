import Foundation
import Glibc
import HeraldProtocol
@testable import HeraldServer
import HeraldTestSupport
import Testing

/// Against the real `herald-server` binary (ServerHarness; HERALD_BIN_DIR or .build/debug).
@Suite("Sync: crash safety of acknowledged sends (binary)", .serialized)
struct SyncCrashTests {
    @Test("R3/R4: SIGKILL during a stream of acknowledged sends; after restart every acknowledged message is there, none twice")
    func killDuringSends() throws {
        let first = try ServerHarness.start(["--push-grace-seconds", "0"])
        let db = first.databasePath
        let token = try TokenIssuer.issue(dbPath: db, user: "alice", name: "Alice", secret: nil, ttlSeconds: 600)
        _ = try TokenIssuer.issue(dbPath: db, user: "bob", name: "Bob", secret: nil, ttlSeconds: 600)
        let alice = try SyncTestClient(port: first.port, token: token)
        try alice.request(#"{"type":"sync"}"#)
        let c = try #require(try alice.request(#"{"type":"dm","user":"bob"}"#).conversation?.id)

        // Pipelined windows of sends (so the kill lands while batches are in flight); record what was acknowledged.
        var acknowledged: [String: String] = [:]  // clientMessageId -> message id
        var attempted: [String] = []
        let window = 25
        var requestId = 1_000
        windows: for round in 0..<40 {
            var inFlight: [Int: String] = [:]
            for n in 0..<window {
                let cid = "crash-\(round)-\(n)"
                requestId += 1
                inFlight[requestId] = cid
                attempted.append(cid)
                do {
                    try alice.sendRaw(#"{"type":"send","id":\#(requestId),"conversation":"\#(c)","clientMessageId":"\#(cid)","text":"\#(cid)"}"#)
                } catch { break windows }
            }
            if round == 6 { first.send(signal: SIGKILL) }
            while !inFlight.isEmpty {
                guard let response = try? alice.response(id: nil, orAnyOf: Set(inFlight.keys)) else { break windows }
                if let id = response.id, let cid = inFlight.removeValue(forKey: id), response.ok, let message = response.message {
                    acknowledged[cid] = message.id
                }
            }
        }
        alice.close()
        #expect(first.waitForExit(timeoutMilliseconds: 5_000) != nil)
        #expect(acknowledged.count >= 6 * window, "the sends before the kill were acknowledged")
        #expect(acknowledged.count < attempted.count, "the kill landed mid-stream")

        let second = try ServerHarness.start(["--push-grace-seconds", "0", "--db", db])
        defer { second.stop() }
        let again = try SyncTestClient(port: second.port, token: token)
        try again.request(#"{"type":"sync"}"#)
        var stored: [MessageInfo] = []
        var before: String?
        while true {
            let page = try again.request(
                #"{"type":"history","conversation":"\#(c)","limit":200\#(before.map { #","before":"\#($0)""# } ?? "")}"#)
            stored += page.messages ?? []
            guard page.hasMore == true, let last = page.messages?.last else { break }
            before = last.id
        }
        let byClientId = Dictionary(grouping: stored, by: { $0.clientMessageId ?? "" })
        #expect(byClientId.values.allSatisfy { $0.count == 1 }, "no message stored twice")
        for (cid, id) in acknowledged { #expect(byClientId[cid]?.first?.id == id, "acknowledged \(cid) survived") }
        // R4 across the crash: retrying everything stores nothing twice.
        for cid in attempted.prefix(acknowledged.count + window) {
            let retry = try again.request(#"{"type":"send","conversation":"\#(c)","clientMessageId":"\#(cid)","text":"\#(cid)"}"#)
            if acknowledged[cid] != nil { #expect(retry.duplicate == true) }
        }
        let total = try again.request(#"{"type":"conversations"}"#)
        #expect(total.conversations?.first?.lastMessage != nil)
    }
}
