import HeraldTestSupport
import Testing

/// Autobahn|Testsuite sections 1 (framing), 2 (pings/pongs), 3 (reserved bits) and 4 (opcodes) against the real
/// server's /echo endpoint, asserting the exact bytes echoed and the exact close code read back.
@Suite("Engine: Autobahn 1-4 (framing, ping/pong, RSV, opcodes)")
struct EngineAutobahnFramingTests {
    // MARK: - 1. Framing

    @Test("Autobahn 1.1.x: text payloads of 0/125/126/127/128/65535/65536/1 MiB bytes are echoed exactly (§5.2 length forms)",
          arguments: [0, 125, 126, 127, 128, 65535, 65536, 1 << 20])
    func case1_1_textLengths(length: Int) throws {
        try withEchoServer { server in
            let client = try RawWebSocketClient.connect(port: server.port)
            let payload = utf8Text(byteCount: length)
            try client.sendFrame(opcode: Op.text, payload: payload)
            let echo = try client.readMessage()
            #expect(echo.opcode == Op.text)
            #expect(echo.payload == payload)
        }
    }

    @Test("Autobahn 1.2.x: binary payloads of 0/125/126/127/128/65535/65536/1 MiB bytes are echoed exactly",
          arguments: [0, 125, 126, 127, 128, 65535, 65536, 1 << 20])
    func case1_2_binaryLengths(length: Int) throws {
        try withEchoServer { server in
            let client = try RawWebSocketClient.connect(port: server.port)
            let payload = patternBytes(length)
            try client.sendFrame(opcode: Op.binary, payload: payload)
            let echo = try client.readMessage()
            #expect(echo.opcode == Op.binary)
            #expect(echo.payload == payload)
        }
    }

    @Test("Autobahn 1.1.8 / 1.2.8: a 65536-byte frame written in 997-byte TCP chunks is echoed exactly")
    func case1_1_8_chunkedWrite() throws {
        try withEchoServer { server in
            let client = try RawWebSocketClient.connect(port: server.port)
            let payload = patternBytes(65536)
            let frame = RawWebSocketClient.frame(opcode: Op.binary, payload: payload)
            for start in stride(from: 0, to: frame.count, by: 997) {
                try client.send(Array(frame[start..<min(start + 997, frame.count)]))
            }
            #expect(try client.readMessage().payload == payload)
        }
    }

    // MARK: - 2. Pings and pongs

    @Test("Autobahn 2.1-2.4: a ping's payload (empty, text, binary, 125 bytes) comes back in the pong (§5.5.2)",
          arguments: [[], Array("Hello, world!".utf8), [0x00, 0xFF, 0xFE, 0xFD, 0xFC, 0xFB, 0x00, 0xFF], patternBytes(125)])
    func case2_1_pingEchoedInPong(payload: [UInt8]) throws {
        try withEchoServer { server in
            let client = try RawWebSocketClient.connect(port: server.port)
            try client.sendFrame(opcode: Op.ping, payload: payload)
            let pong = try client.readFrame()
            #expect(pong.opcode == Op.pong)
            #expect(pong.fin)
            #expect(pong.payload == payload)
        }
    }

    @Test("Autobahn 2.5: a ping with a 126-byte payload fails the connection with 1002 (§5.5: control frames ≤ 125)")
    func case2_5_pingTooLong() throws {
        try withEchoServer { server in
            let client = try RawWebSocketClient.connect(port: server.port)
            try client.sendFrame(opcode: Op.ping, payload: patternBytes(126))
            #expect(try client.readCloseCode() == 1002)
            try client.waitForEOF()
        }
    }

    @Test("Autobahn 2.6: a 125-byte ping written one byte at a time is answered with the same payload")
    func case2_6_pingChunked() throws {
        try withEchoServer { server in
            let client = try RawWebSocketClient.connect(port: server.port)
            let payload = patternBytes(125)
            for byte in RawWebSocketClient.frame(opcode: Op.ping, payload: payload) { try client.send([byte]) }
            let pong = try client.readFrame()
            #expect(pong.opcode == Op.pong && pong.payload == payload)
        }
    }

    @Test("Autobahn 2.7-2.9: unsolicited pongs are ignored (§5.5.3), a later ping is still answered")
    func case2_7_unsolicitedPong() throws {
        try withEchoServer { server in
            let client = try RawWebSocketClient.connect(port: server.port)
            try client.sendFrame(opcode: Op.pong)
            try client.sendFrame(opcode: Op.pong, payload: Array("unsolicited".utf8))
            try client.sendFrame(opcode: Op.ping, payload: Array("ping".utf8))
            let first = try client.readFrame()
            #expect(first.opcode == Op.pong && first.payload == Array("ping".utf8), "the pongs must not be echoed back")
        }
    }

    @Test("Autobahn 2.10/2.11: ten pings sent back to back (whole, then one byte at a time) get ten pongs in order")
    func case2_10_tenPings() throws {
        try withEchoServer { server in
            let client = try RawWebSocketClient.connect(port: server.port)
            var bytes: [UInt8] = []
            for index in 0..<10 { bytes += RawWebSocketClient.frame(opcode: Op.ping, payload: Array("payload-\(index)".utf8)) }
            try client.send(bytes)
            for byte in bytes { try client.send([byte]) }
            for index in 0..<20 {
                let pong = try client.readFrame()
                #expect(pong.opcode == Op.pong && pong.text == "payload-\(index % 10)")
            }
        }
    }

    // MARK: - 3. Reserved bits

    /// (RSV bits, opcode) of Autobahn 3.1-3.7: RSV1 text, RSV2 text, RSV3 text, RSV1+2 text, RSV1+3 binary,
    /// RSV2+3 ping, all three on close.
    static let reservedBitCases: [(UInt8, UInt8)] = [(0b100, Op.text), (0b010, Op.text), (0b001, Op.text), (0b110, Op.text),
                                                    (0b101, Op.binary), (0b011, Op.ping), (0b111, Op.close)]

    @Test("Autobahn 3.1-3.7: any RSV bit without a negotiated extension fails with 1002 (§5.2), after earlier messages were echoed",
          arguments: Self.reservedBitCases)
    func case3_reservedBits(rsv: UInt8, opcode: UInt8) throws {
        try withEchoServer { server in
            let client = try RawWebSocketClient.connect(port: server.port)
            // 3.3: a valid message and the bad frame in one write; the valid one is echoed before the failure.
            try client.send(RawWebSocketClient.frame(opcode: Op.text, payload: Array("Hello".utf8))
                + RawWebSocketClient.frame(opcode: opcode, payload: Array("bad".utf8), rsv: rsv))
            let echo = try client.readFrame()
            #expect(echo.opcode == Op.text && echo.text == "Hello")
            #expect(try client.readCloseCode() == 1002)
            try client.waitForEOF()
        }
    }

    // MARK: - 4. Opcodes

    @Test("Autobahn 4.1.1-4.2.5: reserved opcodes 3-7 and 11-15 fail with 1002 (§5.2), with or without payload",
          arguments: [UInt8(3), 4, 5, 6, 7, 11, 12, 13, 14, 15])
    func case4_reservedOpcodes(opcode: UInt8) throws {
        try withEchoServer { server in
            let client = try RawWebSocketClient.connect(port: server.port)
            try client.sendText("Hello")
            #expect(try client.readMessage().text == "Hello")
            try client.sendFrame(opcode: opcode, payload: opcode % 2 == 0 ? [] : Array("reserved".utf8))
            try client.sendFrame(opcode: Op.ping, payload: Array("never answered".utf8))
            #expect(try client.readCloseCode() == 1002)
            try client.waitForEOF()
        }
    }

    // MARK: - Masking

    @Test("RFC 6455 §5.1: an unmasked client frame fails the connection with 1002")
    func unmaskedClientFrame() throws {
        try withEchoServer { server in
            let client = try RawWebSocketClient.connect(port: server.port)
            try client.sendFrame(opcode: Op.text, payload: Array("not masked".utf8), masked: false)
            #expect(try client.readCloseCode() == 1002)
            try client.waitForEOF()
        }
    }

    @Test("RFC 6455 §5.1: exact bytes: a 2-byte unmasked ping is answered with 88 02 03 EA (close 1002) and nothing else")
    func unmaskedExactBytes() throws {
        try withEchoServer { server in
            let client = try RawWebSocketClient.connect(port: server.port)
            try client.send([0x89, 0x00])  // FIN + ping, MASK bit clear, length 0
            let close = try client.readFrame()
            #expect([close.fin ? 0x80 | close.opcode : close.opcode] + [UInt8(close.payload.count)] + close.payload == [0x88, 0x02, 0x03, 0xEA])
            try client.waitForEOF()
        }
    }
}
