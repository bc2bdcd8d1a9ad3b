import HeraldTestSupport
import Testing

/// The engine's Autobahn-class conformance over `wss://`: a representative subset of each Autobahn section 1-7, 9
/// and 10, run through a ``TLSTunnel`` against `herald-server --tls-cert … --tls-key …`. The raw client's writes
/// become separate TLS records, so chunked and byte-at-a-time cases also split the server's TLS input.
/// Each test shares one server between its cases (every case on a fresh connection) to keep TLS startup cheap.
@Suite("TLS: engine conformance over wss:// (Autobahn 1-7, 9, 10 subset)")
struct TLSEngineConformanceTests {
    @Test("Autobahn 1.1.x/1.2.x over TLS: text and binary of 0/125/126/65535/65536/1 MiB echo exactly; 1.2.8 chunked write")
    func section1_framing() throws {
        try withTLSEchoServer { _, tunnel in
            for length in [0, 125, 126, 65535, 65536, 1 << 20] {
                let client = try RawWebSocketClient.connect(port: tunnel.port)
                let text = utf8Text(byteCount: length)
                try client.sendFrame(opcode: Op.text, payload: text)
                let echo = try client.readMessage()
                #expect(echo.opcode == Op.text && echo.payload == text, "text \(length)")
                let binary = patternBytes(length)
                try client.sendFrame(opcode: Op.binary, payload: binary)
                #expect(try client.readMessage().payload == binary, "binary \(length)")
            }
            let client = try RawWebSocketClient.connect(port: tunnel.port)
            let payload = patternBytes(65536)
            let frame = RawWebSocketClient.frame(opcode: Op.binary, payload: payload)
            for start in stride(from: 0, to: frame.count, by: 997) { try client.send(Array(frame[start..<min(start + 997, frame.count)])) }
            #expect(try client.readMessage().payload == payload)
        }
    }

    @Test("Autobahn 2.x over TLS: ping payloads come back in pongs; 126-byte ping fails 1002; ten pings byte by byte answered in order")
    func section2_pingPong() throws {
        try withTLSEchoServer { _, tunnel in
            let client = try RawWebSocketClient.connect(port: tunnel.port)
            for payload in [[], Array("Hello, world!".utf8), patternBytes(125)] {
                try client.sendFrame(opcode: Op.ping, payload: payload)
                let pong = try client.readFrame()
                #expect(pong.opcode == Op.pong && pong.payload == payload)
            }
            let pings = (0..<10).flatMap { RawWebSocketClient.frame(opcode: Op.ping, payload: Array("ping \($0)".utf8)) }
            for byte in pings { try client.send([byte]) }
            for index in 0..<10 { #expect(try client.readFrame().text == "ping \(index)") }
            let tooLong = try RawWebSocketClient.connect(port: tunnel.port)
            try tooLong.sendFrame(opcode: Op.ping, payload: patternBytes(126))
            #expect(try tooLong.readCloseCode() == 1002)
            try tooLong.waitForEOF()
        }
    }

    @Test("Autobahn 3.x and 4.x over TLS: an RSV bit without an extension, or a reserved opcode, fails with 1002 after earlier echoes")
    func sections3And4_reservedBitsAndOpcodes() throws {
        try withTLSEchoServer { _, tunnel in
            for rsv: UInt8 in [1, 2, 4, 7] {
                let client = try RawWebSocketClient.connect(port: tunnel.port)
                try client.sendText("before")
                #expect(try client.readMessage().text == "before")
                try client.sendFrame(opcode: Op.text, payload: Array("rsv".utf8), rsv: rsv)
                #expect(try client.readCloseCode() == 1002, "rsv \(rsv)")
            }
            for opcode: UInt8 in [3, 7, 11, 15] {
                let client = try RawWebSocketClient.connect(port: tunnel.port)
                try client.sendFrame(opcode: opcode, payload: Array("reserved".utf8))
                #expect(try client.readCloseCode() == 1002, "opcode \(opcode)")
            }
        }
    }

    @Test("Autobahn 5.x over TLS: fragments byte by byte, a ping between fragments, continuation without start (1002)")
    func section5_fragmentation() throws {
        try withTLSEchoServer { _, tunnel in
            let client = try RawWebSocketClient.connect(port: tunnel.port)
            let bytes = RawWebSocketClient.frame(opcode: Op.text, payload: Array("fragment1".utf8), fin: false)
                + RawWebSocketClient.frame(opcode: Op.continuation, payload: Array("fragment2".utf8))
            for byte in bytes { try client.send([byte]) }
            #expect(try client.readMessage().text == "fragment1fragment2")
            try client.sendFrame(opcode: Op.text, payload: Array("fragment1".utf8), fin: false)
            try client.sendFrame(opcode: Op.ping, payload: Array("pongme!".utf8))
            try client.sendFrame(opcode: Op.continuation, payload: Array("fragment2".utf8))
            #expect(try client.readFrame().text == "pongme!")
            #expect(try client.readMessage().text == "fragment1fragment2")
            let orphan = try RawWebSocketClient.connect(port: tunnel.port)
            try orphan.sendFrame(opcode: Op.continuation, payload: Array("non-continuation payload".utf8))
            #expect(try orphan.readCloseCode() == 1002)
            try orphan.waitForEOF()
        }
    }

    @Test("Autobahn 6.x over TLS: valid UTF-8 split inside characters is echoed; invalid UTF-8 fails with 1007, also mid-fragment")
    func section6_utf8() throws {
        try withTLSEchoServer { _, tunnel in
            let text = Array("κόσμε €𝄞 ✓".utf8)
            let client = try RawWebSocketClient.connect(port: tunnel.port)
            for split in 1..<text.count {
                try client.sendFrame(opcode: Op.text, payload: Array(text[..<split]), fin: false)
                try client.sendFrame(opcode: Op.continuation, payload: Array(text[split...]))
                #expect(try client.readMessage().payload == text, "split at \(split)")
            }
            for bad: [UInt8] in [[0xC0, 0xAF], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80], [0xFF]] {
                let failing = try RawWebSocketClient.connect(port: tunnel.port)
                try failing.sendFrame(opcode: Op.text, payload: Array("ok".utf8) + bad)
                #expect(try failing.readCloseCode() == 1007, "\(bad)")
            }
            let midFragment = try RawWebSocketClient.connect(port: tunnel.port)
            try midFragment.sendFrame(opcode: Op.text, payload: Array("start".utf8), fin: false)
            try midFragment.sendFrame(opcode: Op.continuation, payload: [0xCE, 0xBA, 0xF4, 0x90], fin: false)
            #expect(try midFragment.readCloseCode() == 1007)
        }
    }

    @Test("Autobahn 7.x over TLS: close 1000 echoed then TCP closed; empty close; 1-byte close 1002; invalid codes 1002; valid codes echoed")
    func section7_close() throws {
        try withTLSEchoServer { _, tunnel in
            let client = try RawWebSocketClient.connect(port: tunnel.port)
            try client.sendText("Hello World!")
            #expect(try client.readMessage().text == "Hello World!")
            try client.sendClose(code: 1000)
            #expect(try client.readCloseCode() == 1000)
            try client.waitForEOF()
            let empty = try RawWebSocketClient.connect(port: tunnel.port)
            try empty.sendFrame(opcode: Op.close)
            let reply = try empty.readFrame()
            #expect(reply.opcode == Op.close && reply.payload.isEmpty)
            let oneByte = try RawWebSocketClient.connect(port: tunnel.port)
            try oneByte.sendFrame(opcode: Op.close, payload: [0x03])
            #expect(try oneByte.readCloseCode() == 1002)
            for code: UInt16 in [0, 999, 1004, 1005, 1006, 1016, 2999, 5000] {
                let invalid = try RawWebSocketClient.connect(port: tunnel.port)
                try invalid.sendClose(code: code)
                #expect(try invalid.readCloseCode() == 1002, "code \(code)")
            }
            for code: UInt16 in [1001, 1003, 1007, 1011, 3000, 4999] {
                let valid = try RawWebSocketClient.connect(port: tunnel.port)
                try valid.sendClose(code: code)
                #expect(try valid.readCloseCode() == code, "code \(code)")
            }
        }
    }

    @Test("Autobahn 9.x/10.1.1 over TLS: 1 MiB in 4 KiB fragments, 256 KiB in 64-byte TCP chunks, 1,000 small messages in order")
    func sections9And10_limitsAndPerformance() throws {
        try withTLSEchoServer { _, tunnel in
            let client = try RawWebSocketClient.connect(port: tunnel.port, timeoutMilliseconds: 20_000)
            let big = patternBytes(1 << 20)
            var bytes: [UInt8] = []
            for start in stride(from: 0, to: big.count, by: 4096) {
                bytes += RawWebSocketClient.frame(opcode: start == 0 ? Op.binary : Op.continuation,
                                                  payload: Array(big[start..<(start + 4096)]), fin: start + 4096 == big.count)
            }
            try client.send(bytes)
            #expect(try client.readMessage().payload == big)
            let chunked = patternBytes(256 << 10, seed: 3)
            let frame = RawWebSocketClient.frame(opcode: Op.binary, payload: chunked)
            for start in stride(from: 0, to: frame.count, by: 64) { try client.send(Array(frame[start..<min(start + 64, frame.count)])) }
            #expect(try client.readMessage().payload == chunked)
            var burst: [UInt8] = []
            for index in 0..<1000 { burst += RawWebSocketClient.frame(opcode: Op.text, payload: Array("message \(index)".utf8)) }
            try client.send(burst)
            for index in 0..<1000 { #expect(try client.readMessage().text == "message \(index)") }
        }
    }
}
