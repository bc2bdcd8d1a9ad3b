import Foundation
import HeraldProtocol
@testable import HeraldServer
import HeraldTestSupport
import Testing

/// R4 on PostgreSQL when a retry arrives in the same batch as new sends: the batch's COMMIT meets the unique key, the
/// node redoes the batch request by request, and every request gets the answer it would have got alone.
@Suite("Multi-node: a retry inside a batch of new sends (R4)", .serialized,
       .enabled(if: PostgresCluster.binariesAvailable, PostgresCluster.skipReason))
struct MultiNodeRetryTests {
    @Test("R4: a retry pipelined between new sends is answered duplicate with the original; the new ones are stored once, in order")
    func retryInsideBatch() throws {
        let (url, servers) = try startNodes(1)
        let server = servers[0]
        defer { server.stop() }
        let alice = try SyncTestClient(port: server.port, token: try ServerHarness.token("alice", store: url))
        let bob = try SyncTestClient(port: server.port, token: try ServerHarness.token("bob", store: url))
        for client in [alice, bob] { try client.request(#"{"type":"sync"}"#) }
        let c = try #require(try alice.request(#"{"type":"dm","user":"bob"}"#).conversation?.id)
        let original = try #require(try alice.request(#"{"type":"send","conversation":"\#(c)","clientMessageId":"k1","text":"first"}"#).message)

        // Sent back to back, so they reach the sync thread together and share a batch.
        let keys = ["k2", "k1", "k3", "k1", "k4"]
        for (index, key) in keys.enumerated() {
            try alice.sendRaw(#"{"id":\#(100 + index),"type":"send","conversation":"\#(c)","clientMessageId":"\#(key)","text":"again \#(key)"}"#)
        }
        var responses: [Int: ResponseFrame] = [:]
        while responses.count < keys.count {
            let response = try alice.response(id: -1, orAnyOf: Set((100..<100 + keys.count)).subtracting(responses.keys))
            if let id = response.id { responses[id] = response }
        }
        for (index, key) in keys.enumerated() {
            let response = try #require(responses[100 + index])
            #expect(response.ok, "\(key): \(String(describing: response.error))")
            if key == "k1" {
                #expect(response.duplicate == true)
                #expect(response.message?.id == original.id)
                #expect(response.message?.text == "first")
            } else {
                #expect(response.duplicate != true)
            }
        }
        let history = try #require(try bob.request(#"{"type":"history","conversation":"\#(c)","limit":20}"#).messages)
        #expect(history.map(\.text).reversed() == ["first", "again k2", "again k3", "again k4"])
        var seen: [String] = []
        while seen.count < 4 { seen.append(try #require(try bob.event(timeoutMilliseconds: 5_000) { $0.event == .message }.message?.text)) }
        #expect(seen == ["first", "again k2", "again k3", "again k4"])
        #expect(bob.settle(milliseconds: 300).allSatisfy { $0.event != .message }, "nothing twice")
    }
}
