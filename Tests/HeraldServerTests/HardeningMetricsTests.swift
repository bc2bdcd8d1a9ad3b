import Foundation
import HeraldProtocol
@testable import HeraldServer
import HeraldTestSupport
import Testing

/// `GET /metrics` is Prometheus text and its counters follow the traffic. Real binary.
@Suite("Hardening: /metrics (binary)", .serialized)
struct HardeningMetricsTests {
    @Test("Prometheus text format: every line is # HELP, # TYPE or name{labels} value; histogram buckets are cumulative")
    func parsesAsPrometheusText() throws {
        let server = try ServerHarness.start(["--bench-endpoints"])
        defer { server.stop() }
        let response = try Hardening.get(port: server.port, "/metrics")
        #expect(response.status == 200)
        #expect(response.header("Content-Type")?.hasPrefix("text/plain; version=0.0.4") == true)
        let (samples, bad) = Hardening.parsePrometheus(response.body)
        #expect(bad == nil, "bad line: \(bad ?? "")")
        #expect(samples.count > 30)
        let buckets = samples.filter { $0.name == "herald_delivery_latency_seconds_bucket" }.map(\.value)
        #expect(!buckets.isEmpty && buckets == buckets.sorted())
        // The parser itself rejects what is not the format.
        #expect(Hardening.parsePrometheus("herald_x 1\nnot a metric line\n").badLine == "not a metric line")
        #expect(Hardening.parsePrometheus("herald_x{a=\"b\"} 1\n").badLine == nil)
        #expect(try Hardening.get(port: server.port, "/metricsx").status == 404)
    }

    @Test("Counters move with traffic: connections, bytes, messages, stored messages, fan-out, delivery latency, sync batches, errors by code")
    func countersMove() throws {
        let server = try ServerHarness.start(["--bench-endpoints"])
        defer { server.stop() }
        let before = try Hardening.metrics(port: server.port)
        let echo = try RawWebSocketClient.connect(port: server.port)
        for n in 0..<20 {
            try echo.sendText("hello \(n)")
            _ = try echo.readMessage()
        }
        let alice = try SyncTestClient(port: server.port, token: try Hardening.token(server, "alice"))
        let bob = try SyncTestClient(port: server.port, token: try Hardening.token(server, "bob"))
        try alice.request(#"{"type":"sync"}"#)
        try bob.request(#"{"type":"sync"}"#)
        let c = try #require(try alice.request(#"{"type":"dm","user":"bob"}"#).conversation?.id)
        for n in 0..<5 { try alice.request(#"{"type":"send","conversation":"\#(c)","clientMessageId":"k\#(n)","text":"hi"}"#) }
        try alice.request(#"{"type":"bogus"}"#)
        _ = try bob.event { $0.event == .message && $0.message?.clientMessageId == "k4" }
        var after: [String: Double] = [:]
        #expect(try Hardening.eventually {
            after = try Hardening.metrics(port: server.port)
            return (after["herald_messages_stored_total"] ?? 0) == 5
        })
        func grew(_ name: String, by amount: Double) {
            #expect((after[name] ?? 0) - (before[name] ?? 0) >= amount, "\(name): \(before[name] ?? -1) → \(after[name] ?? -1)")
        }
        grew("herald_connections_accepted_total", by: 3)
        grew("herald_websocket_upgrades_total", by: 3)
        grew("herald_websocket_messages_received_total", by: 20 + 8)
        grew("herald_websocket_frames_sent_total", by: 20 + 8)
        grew("herald_bytes_received_total", by: 500)
        grew("herald_bytes_sent_total", by: 500)
        grew("herald_fanout_deliveries_total", by: 10)
        grew("herald_delivery_latency_seconds_count", by: 5)
        // At least one batch per send (each waits for its answer before the next goes), plus sync and dm.
        grew("herald_sync_batch_seconds_count", by: 5 + 3)
        grew("herald_sync_errors_total{code=unknown_type}", by: 1)
        #expect((after["herald_connections{state=websocket}"] ?? 0) == 3)
        #expect(after["herald_outbound_queue_bytes"] != nil)
    }
}
