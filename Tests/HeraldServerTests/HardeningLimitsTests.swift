import Foundation
import Glibc
import HeraldProtocol
@testable import HeraldServer
import HeraldTestSupport
import Testing

/// Every limit is a flag (or HERALD_* variable) and says clearly what it refused. Real binary.
@Suite("Hardening: limits (binary)", .serialized)
struct HardeningLimitsTests {
    @Test("--max-connections: the connection over the limit gets 503 before any upgrade; a freed slot is reusable")
    func maxConnections() throws {
        let server = try ServerHarness.start(["--bench-endpoints", "--max-connections", "4"])
        defer { server.stop() }
        let held = try (0..<4).map { _ in try RawWebSocketClient.connect(port: server.port) }
        #expect(Hardening.probe(port: server.port, request: Hardening.upgrade()) == 503)
        held[0].close()
        #expect(Hardening.eventually { Hardening.probe(port: server.port, request: Hardening.upgrade()) == 101 })
        for client in held.dropFirst() {
            try client.sendText("alive")
            #expect(try client.readMessage().text == "alive")
        }
        let metrics = try Hardening.metricsWhenFree(server, held: held)
        #expect((metrics["herald_connections_refused_total{reason=max_connections}"] ?? 0) >= 1)
    }

    @Test("--max-connections-per-ip: one address gets 429 past its share, another address is still served")
    func perAddressConnections() throws {
        let server = try ServerHarness.start(["--bench-endpoints", "--max-connections-per-ip", "3"])
        defer { server.stop() }
        let held = try (0..<3).map { _ in try RawWebSocketClient.connect(port: server.port) }
        #expect(Hardening.probe(port: server.port, request: Hardening.upgrade()) == 429)
        #expect(Hardening.probe(port: server.port, sourceIP: "127.0.0.2", request: Hardening.upgrade()) == 101)
        held[0].close()
        #expect(Hardening.eventually { Hardening.probe(port: server.port, request: Hardening.upgrade()) == 101 })
        try held[1].sendText("still")
        #expect(try held[1].readMessage().text == "still")
    }

    @Test("HERALD_HANDSHAKE_RATE_PER_IP: a burst past the rate gets 429 with Retry-After; other addresses are unaffected")
    func handshakeRate() throws {
        let server = try ServerHarness.start(["--bench-endpoints"], environment: ["HERALD_HANDSHAKE_RATE_PER_IP": "2"])
        defer { server.stop() }
        // Rate 2/s, burst 10: the first ten pass, then refusals until tokens refill.
        let statuses = (0..<25).map { _ in Hardening.probe(port: server.port, request: Hardening.upgrade()) }
        #expect(statuses.prefix(10).allSatisfy { $0 == 101 }, "\(statuses)")
        #expect(statuses.filter { $0 == 429 }.count >= 10, "\(statuses)")
        #expect(statuses.allSatisfy { $0 == 101 || $0 == 429 })
        let refused = try RawWebSocketClient(port: server.port)
        try refused.send(Hardening.upgrade())
        let answer = try refused.readHTTPResponse()
        #expect(answer.status == 429 && answer.header("Retry-After") != nil)
        #expect(Hardening.probe(port: server.port, sourceIP: "127.0.0.3", request: Hardening.upgrade()) == 101)
    }

    @Test("HERALD_HANDSHAKE_TIMEOUT_MS: a request head that never completes is dropped after the timeout and counted")
    func handshakeTimeout() throws {
        let server = try ServerHarness.start(["--bench-endpoints"], environment: ["HERALD_HANDSHAKE_TIMEOUT_MS": "300"])
        defer { server.stop() }
        let slow = try RawWebSocketClient(port: server.port, timeoutMilliseconds: 3_000)
        try slow.send("GET /echo HTTP/1.1\r\nHost: x\r\n")
        let started = Date()
        try slow.waitForEOF()
        #expect(Date().timeIntervalSince(started) < 2)
        #expect((try Hardening.metrics(port: server.port)["herald_handshake_timeouts_total"] ?? 0) >= 1)
    }

    @Test("--ping-interval-ms / --idle-timeout-ms: a silent session is pinged, then closed with 1001")
    func idleTimeout() throws {
        let server = try ServerHarness.start(["--bench-endpoints", "--ping-interval-ms", "150", "--idle-timeout-ms", "500", "--tick-ms", "20"])
        defer { server.stop() }
        let client = try RawWebSocketClient.connect(port: server.port)
        #expect(try client.readFrame(timeoutMilliseconds: 2_000).opcode == 0x9)
        #expect(try client.readCloseCode(timeoutMilliseconds: 2_000) == 1001)
    }

    @Test("--max-frame-bytes / --max-message-bytes from flags: one byte over either fails that connection with 1009")
    func frameAndMessageSize() throws {
        let server = try ServerHarness.start(["--bench-endpoints", "--max-frame-bytes", "1000", "--max-message-bytes", "3000"])
        defer { server.stop() }
        let fits = try RawWebSocketClient.connect(port: server.port)
        try fits.sendFrame(opcode: 0x2, payload: [UInt8](repeating: 7, count: 1000))
        #expect(try fits.readMessage().payload.count == 1000)
        let bigFrame = try RawWebSocketClient.connect(port: server.port)
        try bigFrame.sendFrame(opcode: 0x2, payload: [UInt8](repeating: 7, count: 1001))
        #expect(try bigFrame.readCloseCode() == 1009)
        let bigMessage = try RawWebSocketClient.connect(port: server.port)
        try bigMessage.sendFrame(opcode: 0x2, payload: [UInt8](repeating: 1, count: 1000), fin: false)
        try bigMessage.sendFrame(opcode: 0x0, payload: [UInt8](repeating: 2, count: 1000), fin: false)
        try bigMessage.sendFrame(opcode: 0x0, payload: [UInt8](repeating: 3, count: 1001), fin: true)
        #expect(try bigMessage.readCloseCode() == 1009)
        try fits.sendText("unaffected")
        #expect(try fits.readMessage().text == "unaffected")
        #expect((try Hardening.metrics(port: server.port)["herald_websocket_closes_total{code=1009}"] ?? 0) >= 2)
    }

    @Test("--sync-send-rate: sends past the per-user rate get rate_limited (nothing stored), the connection stays open")
    func syncSendRate() throws {
        let server = try ServerHarness.start(["--sync-send-rate", "5"])
        defer { server.stop() }
        let (alice, c) = try Hardening.aliceInDMWithBob(server)
        // Rate 5/s, burst 10: 30 pipelined sends.
        for n in 0..<30 { try alice.sendRaw(#"{"type":"send","id":\#(100 + n),"conversation":"\#(c)","clientMessageId":"r\#(n)","text":"n\#(n)"}"#) }
        var ok = 0, limited = 0
        for n in 0..<30 {
            let response = try alice.response(id: 100 + n)
            if response.ok { ok += 1 } else if response.error?.code == .rateLimited { limited += 1 }
        }
        #expect(ok >= 10 && ok < 30 && ok + limited == 30, "ok \(ok), rate_limited \(limited)")
        let history = try alice.request(#"{"type":"history","conversation":"\#(c)","limit":200}"#)
        #expect(history.messages?.count == ok, "only acknowledged sends are stored")
        usleep(600_000)
        #expect(try alice.request(#"{"type":"send","conversation":"\#(c)","clientMessageId":"later","text":"later"}"#).ok)
        #expect((try Hardening.metrics(port: server.port)["herald_sync_errors_total{code=rate_limited}"] ?? 0) == Double(limited))
    }

    @Test("Default send rate: 150 sends at once from one user (above the spec's 50/s) are all accepted")
    func defaultSendRateAllowsSpecRate() throws {
        let server = try ServerHarness.start()
        defer { server.stop() }
        let (alice, c) = try Hardening.aliceInDMWithBob(server)
        for n in 0..<150 { try alice.sendRaw(#"{"type":"send","id":\#(100 + n),"conversation":"\#(c)","clientMessageId":"d\#(n)","text":"n\#(n)"}"#) }
        var ok = 0
        for n in 0..<150 where try alice.response(id: 100 + n).ok { ok += 1 }
        #expect(ok == 150)
    }

    @Test("--max-text-bytes reaches the request decoder: one byte over is too_large, exactly the limit is stored")
    func maxTextBytes() throws {
        let server = try ServerHarness.start(["--max-text-bytes", "100"])
        defer { server.stop() }
        let (alice, c) = try Hardening.aliceInDMWithBob(server)
        let over = try alice.request(#"{"type":"send","conversation":"\#(c)","clientMessageId":"a","text":"\#(String(repeating: "x", count: 101))"}"#)
        #expect(over.error?.code == .tooLarge)
        #expect(try alice.request(#"{"type":"send","conversation":"\#(c)","clientMessageId":"b","text":"\#(String(repeating: "x", count: 100))"}"#).ok)
    }

    @Test("--max-unanswered-requests: 0 is refused at start; with 64, 64 sends pipelined on one connection are all stored and answered in order")
    func maxUnansweredRequests() throws {
        let refused = try runToCompletion(ServerHarness.binaryPath(), ["serve", "--max-unanswered-requests", "0"], timeout: .seconds(30))
        #expect(refused.status != 0 && refused.standardError.contains("max-unanswered-requests"), "\(refused.standardError)")
        let server = try ServerHarness.start(["--max-unanswered-requests", "64", "--sync-send-rate", "0"])
        defer { server.stop() }
        let (alice, c) = try Hardening.aliceInDMWithBob(server)
        for n in 0..<64 { try alice.sendRaw(#"{"type":"send","id":\#(100 + n),"conversation":"\#(c)","clientMessageId":"p\#(n)","text":"n\#(n)"}"#) }
        for n in 0..<64 { #expect(try alice.response(id: 100 + n).ok) }
        let history = try alice.request(#"{"type":"history","conversation":"\#(c)","limit":100}"#)
        #expect(history.messages?.map(\.text) == (0..<64).reversed().map { "n\($0)" })  // newest first
    }

    @Test("`serve --help` lists every new limit with its HERALD_* variable")
    func helpListsLimits() throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: ServerHarness.binaryPath())
        process.arguments = ["serve", "--help"]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let help = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        for (flag, variable) in [("--max-connections-per-ip", "HERALD_MAX_CONNECTIONS_PER_IP"), ("--handshake-rate-per-ip", "HERALD_HANDSHAKE_RATE_PER_IP"),
                                 ("--sync-send-rate", "HERALD_SYNC_SEND_RATE"), ("--max-text-bytes", "HERALD_MAX_TEXT_BYTES"),
                                 ("--max-queued-bytes", "HERALD_MAX_QUEUED_BYTES"), ("--socket-send-buffer-bytes", "HERALD_SOCKET_SEND_BUFFER_BYTES"), ("--metrics", "HERALD_METRICS"),
                                 ("--max-connections", "HERALD_MAX_CONNECTIONS"), ("--log-level", "HERALD_LOG_LEVEL")] {
            #expect(help.contains(flag) && help.contains(variable), "\(flag) / \(variable)")
        }
        for (flag, variable) in HeraldServerOptions.environmentNames { #expect(help.contains("--\(flag)") && help.contains(variable), "\(flag)") }
    }
}

extension Hardening {
    /// /metrics on a server whose connection limit is full: frees one held connection first.
    static func metricsWhenFree(_ server: ServerHarness, held: [RawWebSocketClient]) throws -> [String: Double] {
        held.last?.close()
        var result: [String: Double] = [:]
        // The closed connection's slot is freed when the server has seen the close: until then /metrics is refused.
        _ = Hardening.eventually { Hardening.metricsIfServed(port: server.port).map { result = $0; return true } ?? false }
        return result
    }
}
