import Glibc
import HeraldTestSupport
import Testing

/// Hostile and broken clients against the real server: each case gets its answer (or its close) and a second
/// connection opened alongside keeps working throughout.
@Suite("Engine: bad input, HTTP routes, timeouts, shutdown")
struct EngineBadInputTests {
    @Test("Garbage instead of an HTTP request is answered 400 and closed; an echo session alongside is unaffected")
    func garbageInsteadOfHTTP() throws {
        try withEchoServer { server in
            let bystander = try RawWebSocketClient.connect(port: server.port)
            let attacker = try RawWebSocketClient(port: server.port)
            try attacker.send([0x16, 0x03, 0x01, 0x02, 0x00, 0x01, 0x00, 0x01, 0xFC, 0x03, 0x03] + patternBytes(500))  // a TLS ClientHello
            #expect(try attacker.readToEOF().hasPrefix("HTTP/1.1 400 "))
            let text = try RawWebSocketClient(port: server.port)
            try text.send("HELLO THERE\r\n\r\n")
            #expect(try text.readToEOF().hasPrefix("HTTP/1.1 400 "))
            try bystander.sendText("unaffected")
            #expect(try bystander.readMessage().text == "unaffected")
        }
    }

    @Test("RFC 6455 §10.4: a frame header claiming 1 GiB is refused with 1009 at once, before any payload is sent or buffered")
    func oneGibibyteLengthHeader() throws {
        try withEchoServer { server in
            let bystander = try RawWebSocketClient.connect(port: server.port)
            let attacker = try RawWebSocketClient.connect(port: server.port)
            // 82 FF: FIN + binary, MASK + 64-bit length; 00 00 00 00 40 00 00 00 = 2^30 bytes; then a mask key. No payload.
            try attacker.send([0x82, 0xFF, 0x00, 0x00, 0x00, 0x00, 0x40, 0x00, 0x00, 0x00, 0x01, 0x02, 0x03, 0x04])
            #expect(try attacker.readCloseCode(timeoutMilliseconds: 2000) == 1009)
            try attacker.waitForEOF()
            // A 64-bit length with the top bit set is a protocol error (§5.2).
            let huge = try RawWebSocketClient.connect(port: server.port)
            try huge.send([0x82, 0xFF, 0x80, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x02, 0x03, 0x04])
            let code = try huge.readCloseCode(timeoutMilliseconds: 2000)
            #expect(code == 1002 || code == 1009)
            try bystander.sendText("unaffected")
            #expect(try bystander.readMessage().text == "unaffected")
        }
    }

    @Test("A handshake that never finishes is closed after --handshake-timeout-ms; a session alongside keeps echoing")
    func slowHandshakeTimesOut() throws {
        try withEchoServer(["--handshake-timeout-ms", "300", "--tick-ms", "20"]) { server in
            let bystander = try RawWebSocketClient.connect(port: server.port)
            let slow = try RawWebSocketClient(port: server.port)
            let started = RawWebSocketClientClock.now()
            try slow.send("GET /echo HTTP/1.1\r\nHost: 127.0.0.1\r\n")  // ... and never the blank line
            try slow.waitForEOF(timeoutMilliseconds: 3000)
            let elapsed = RawWebSocketClientClock.now() - started
            #expect(elapsed >= 250 && elapsed < 2000, "closed after \(elapsed) ms")
            // A completed handshake is not subject to the handshake timeout.
            usleep(400_000)
            try bystander.sendText("unaffected")
            #expect(try bystander.readMessage().text == "unaffected")
        }
    }

    @Test("HTTP routes: /healthz 200 ok, unknown path 404, non-upgrade GET /echo 400, all with Connection: close")
    func httpRoutes() throws {
        try withEchoServer { server in
            let bystander = try RawWebSocketClient.connect(port: server.port)
            let health = try RawWebSocketClient(port: server.port)
            try health.send("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            let ok = try health.readHTTPResponse()
            #expect(ok.status == 200 && ok.body == "ok\n" && ok.header("Connection") == "close")

            // --bench-endpoints serves the broadcast endpoint on every unrouted path, so the unknown path is asked of
            // a server without it.
            let product = try ServerHarness.start()
            defer { product.stop() }
            let missing = try RawWebSocketClient(port: product.port)
            try missing.send(RawWebSocketClient.upgradeRequest(path: "/nowhere").bytes)
            #expect(try missing.readHTTPResponse().status == 404)
            try missing.waitForEOF()

            let plain = try RawWebSocketClient(port: server.port)
            try plain.send("GET /echo HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            #expect(try plain.readHTTPResponse().status == 400)
            try bystander.sendText("unaffected")
            #expect(try bystander.readMessage().text == "unaffected")
        }
    }

    @Test("RFC 6455 §4.2.2: Sec-WebSocket-Version 8 gets 426 with Sec-WebSocket-Version: 13 and no upgrade; a bad key gets 400")
    func badHandshakes() throws {
        try withEchoServer { server in
            let old = try RawWebSocketClient(port: server.port)
            try old.send(RawWebSocketClient.upgradeRequest(path: "/echo", version: "8").bytes)
            let refused = try old.readHTTPResponse()
            #expect(refused.status == 426)
            #expect(refused.header("Sec-WebSocket-Version") == "13")
            #expect(refused.header("Upgrade") == nil)
            try old.waitForEOF()

            let badKey = try RawWebSocketClient(port: server.port)
            try badKey.send("GET /echo HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: short\r\nSec-WebSocket-Version: 13\r\n\r\n")
            #expect(try badKey.readHTTPResponse().status == 400)

            let post = try RawWebSocketClient(port: server.port)
            var request = RawWebSocketClient.upgradeRequest(path: "/echo").bytes
            request.replaceSubrange(0..<3, with: Array("PUT".utf8))
            try post.send(request)
            #expect(try post.readHTTPResponse().status == 400)
        }
    }

    @Test("A client frame sent in the same packet as the upgrade request is processed after the 101")
    func frameRightBehindRequest() throws {
        try withEchoServer { server in
            let client = try RawWebSocketClient(port: server.port)
            let request = RawWebSocketClient.upgradeRequest(path: "/echo")
            try client.send(request.bytes + RawWebSocketClient.frame(opcode: Op.text, payload: Array("eager".utf8)))
            let response = try client.readHTTPResponse()
            #expect(response.status == 101)
            #expect(response.header("Sec-WebSocket-Accept") == RawWebSocketClient.acceptValue(for: request.key))
            #expect(try client.readMessage().text == "eager")
        }
    }

    @Test("Idle sessions are pinged every --ping-interval-ms and closed with 1001 after --idle-timeout-ms of silence")
    func pingAndIdleTimeout() throws {
        try withEchoServer(["--ping-interval-ms", "150", "--idle-timeout-ms", "600", "--tick-ms", "20"]) { server in
            let client = try RawWebSocketClient.connect(port: server.port)
            let ping = try client.readFrame(timeoutMilliseconds: 1000)
            #expect(ping.opcode == Op.ping)
            // We never answer: the session must go within the idle timeout (+ tick), with 1001.
            #expect(try client.readCloseCode(timeoutMilliseconds: 2000) == 1001)
            // A client that answers pings stays: pongs are bytes, and bytes reset the idle clock.
            let lively = try RawWebSocketClient.connect(port: server.port)
            let deadline = RawWebSocketClientClock.now() + 1000
            while RawWebSocketClientClock.now() < deadline {
                let frame = try lively.readFrame(timeoutMilliseconds: 1000)
                #expect(frame.opcode == Op.ping)
                try lively.sendFrame(opcode: Op.pong, payload: frame.payload)
            }
            try lively.sendText("alive")
            #expect(try lively.readMessage().text == "alive")
        }
    }

    @Test("SIGTERM: every connected client gets close 1001, then the server exits with status 0")
    func sigtermClosesEveryone() throws {
        let server = try ServerHarness.start(["--bench-endpoints"])
        defer { server.stop() }
        let clients = try (0..<20).map { _ in try RawWebSocketClient.connect(port: server.port) }
        let halfOpen = try RawWebSocketClient(port: server.port)
        try halfOpen.send("GET /echo HTTP/1.1\r\n")
        try clients[0].sendText("before")
        #expect(try clients[0].readMessage().text == "before")
        server.send(signal: SIGTERM)
        for client in clients {
            #expect(try client.readCloseCode(timeoutMilliseconds: 3000) == 1001)
        }
        try halfOpen.waitForEOF(timeoutMilliseconds: 3000)
        #expect(server.waitForExit(timeoutMilliseconds: 5000) == 0)
        #expect(!server.terminatedBySignal)
    }
}

/// The raw client's monotonic clock in milliseconds, for measuring timeouts.
enum RawWebSocketClientClock {
    static func now() -> Int64 {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return Int64(spec.tv_sec) * 1000 + Int64(spec.tv_nsec) / 1_000_000
    }
}
