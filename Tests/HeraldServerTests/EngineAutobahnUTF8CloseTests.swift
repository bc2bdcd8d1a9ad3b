import HeraldTestSupport
import Testing

/// Autobahn|Testsuite sections 6 (UTF-8 handling, RFC 6455 §8.1) and 7 (close handling, §5.5.1, §7.4) against the
/// real server's /echo endpoint.
@Suite("Engine: Autobahn 6-7 (UTF-8, close)")
struct EngineAutobahnUTF8CloseTests {
    /// "κόσμε" in UTF-8, the Autobahn 6.x sample text.
    static let kosme: [UInt8] = [0xCE, 0xBA, 0xE1, 0xBD, 0xB9, 0xCF, 0x83, 0xCE, 0xBC, 0xCE, 0xB5]

    /// Invalid sequences from Autobahn 6.3-6.21, each commented with what it claims.
    static let invalidSequences: [(String, [UInt8])] = [
        ("6.3.1 κόσμε then U+10FFFF+1 (F4 90 80 80, above the Unicode range)", kosme + [0xF4, 0x90, 0x80, 0x80] + Array("edited".utf8)),
        ("6.6.1 lone 2-byte lead CE cut at the end", [0xCE]),
        ("6.8.1 5-byte sequence F8 88 80 80 80 (not UTF-8)", [0xF8, 0x88, 0x80, 0x80, 0x80]),
        ("6.10.1 byte FE", [0xFE]),
        ("6.11.1 byte FF", [0xFF]),
        ("6.12.1 lone continuation byte 80", [0x80]),
        ("6.14.1 lead C0 followed by space (cut sequence)", [0xC0, 0x20]),
        ("6.17.1 overlong '/' C0 AF", [0xC0, 0xAF]),
        ("6.17.2 overlong '/' E0 80 AF", [0xE0, 0x80, 0xAF]),
        ("6.17.3 overlong '/' F0 80 80 AF", [0xF0, 0x80, 0x80, 0xAF]),
        ("6.18.1 overlong U+07FF C1 BF", [0xC1, 0xBF]),
        ("6.19.1 UTF-16 surrogate U+D800 (ED A0 80)", [0xED, 0xA0, 0x80]),
        ("6.19.5 UTF-16 surrogate U+DFFF (ED BF BF)", [0xED, 0xBF, 0xBF]),
        ("6.20.1 surrogate pair D800 DC00", [0xED, 0xA0, 0x80, 0xED, 0xB0, 0x80]),
        ("6.21 F5 lead byte (> U+10FFFF)", [0xF5, 0x80, 0x80, 0x80]),
        ("6.x 3-byte sequence cut at the end E2 82", Array("a".utf8) + [0xE2, 0x82]),
    ]

    // MARK: - 6. UTF-8

    @Test("Autobahn 6.1: empty text frames (single, fragmented with empty parts) are echoed as an empty message")
    func case6_1_emptyFrames() throws {
        try withEchoServer { server in
            let client = try RawWebSocketClient.connect(port: server.port)
            try client.sendFrame(opcode: Op.text)
            #expect(try client.readMessage().payload == [])
            try client.sendFrame(opcode: Op.text, fin: false)
            try client.sendFrame(opcode: Op.continuation, fin: false)
            try client.sendFrame(opcode: Op.continuation, payload: [])
            #expect(try client.readMessage().payload == [])
        }
    }

    @Test("Autobahn 6.2.x: valid UTF-8 fragmented at every byte position (inside characters too) is echoed exactly")
    func case6_2_validSplitEverywhere() throws {
        try withEchoServer { server in
            let client = try RawWebSocketClient.connect(port: server.port)
            let text = Array("Hello-µ@ßöäüàá-UTF-8!!".utf8) + Self.kosme + [0xF0, 0x90, 0x80, 0x80]  // ends with U+10000
            for split in 1..<text.count {
                try client.sendFrame(opcode: Op.text, payload: Array(text[..<split]), fin: false)
                try client.sendFrame(opcode: Op.continuation, payload: Array(text[split...]))
                #expect(try client.readMessage().payload == text, "split at \(split)")
            }
            // 6.2.4: one byte per frame.
            for (index, byte) in text.enumerated() {
                try client.sendFrame(opcode: index == 0 ? Op.text : Op.continuation, payload: [byte], fin: index == text.count - 1)
            }
            #expect(try client.readMessage().payload == text)
        }
    }

    @Test("Autobahn 6.3-6.21: invalid UTF-8 in a single-frame text message fails with 1007 (§8.1)",
          arguments: EngineAutobahnUTF8CloseTests.invalidSequences.map(\.0))
    func case6_invalidUTF8(name: String) throws {
        let bytes = try #require(Self.invalidSequences.first { $0.0 == name }?.1)
        try withEchoServer { server in
            let client = try RawWebSocketClient.connect(port: server.port)
            try client.sendFrame(opcode: Op.text, payload: bytes)
            #expect(try client.readCloseCode() == 1007)
            try client.waitForEOF()
        }
    }

    @Test("Autobahn 6.4.1/6.4.2: invalid UTF-8 in a middle fragment fails with 1007 before the final fragment is sent (fail fast)")
    func case6_4_1_failFastBeforeFinalFragment() throws {
        try withEchoServer { server in
            let client = try RawWebSocketClient.connect(port: server.port)
            try client.sendFrame(opcode: Op.text, payload: Self.kosme, fin: false)
            try client.sendFrame(opcode: Op.continuation, payload: [0xF4, 0x90, 0x80, 0x80], fin: false)
            // The final fragment is deliberately never sent: the close must come without it.
            #expect(try client.readCloseCode(timeoutMilliseconds: 2000) == 1007)
        }
    }

    @Test("Autobahn 6.4.3/6.4.4: an invalid sequence split across fragments (F4 | 90 80 80) fails with 1007 once the bad byte arrives")
    func case6_4_3_invalidSequenceSplitAcrossFragments() throws {
        try withEchoServer { server in
            let client = try RawWebSocketClient.connect(port: server.port)
            try client.sendFrame(opcode: Op.text, payload: Self.kosme + [0xF4], fin: false)
            // F4 alone could still start a valid 4-byte sequence: no verdict yet, so the connection must stay open.
            try client.sendFrame(opcode: Op.ping, payload: Array("still open".utf8))
            let pong = try client.readFrame()
            #expect(pong.opcode == Op.pong && pong.text == "still open")
            try client.sendFrame(opcode: Op.continuation, payload: [0x90, 0x80, 0x80], fin: false)
            #expect(try client.readCloseCode(timeoutMilliseconds: 2000) == 1007)
        }
    }

    @Test("Autobahn 6.4.x: invalid UTF-8 inside ONE frame fails with 1007 before that frame's payload has fully arrived")
    func case6_4_failFastWithinFrame() throws {
        try withEchoServer { server in
            let client = try RawWebSocketClient.connect(port: server.port)
            let payload = Self.kosme + [0xF4, 0x90, 0x80, 0x80] + Array(repeating: UInt8(ascii: "a"), count: 1000)
            let frame = RawWebSocketClient.frame(opcode: Op.text, payload: payload)
            // Header, mask key and the payload up to and including the bad sequence; the rest never goes out.
            try client.send(Array(frame[0..<(8 + Self.kosme.count + 4)]))
            #expect(try client.readCloseCode(timeoutMilliseconds: 2000) == 1007)
        }
    }

    // MARK: - 7. Close handling

    @Test("Autobahn 7.1.1: echo, then a client close 1000 is answered with close 1000 and the server closes TCP (§7.1.1)")
    func case7_1_1_closeAfterEcho() throws {
        try withEchoServer { server in
            let client = try RawWebSocketClient.connect(port: server.port)
            try client.sendText("Hello World!")
            #expect(try client.readMessage().text == "Hello World!")
            try client.sendClose(code: 1000)
            #expect(try client.readCloseCode() == 1000)
            try client.waitForEOF()
        }
    }

    @Test("Autobahn 7.1.2-7.1.4: after a close, further close/ping/text frames are ignored (no pong, no echo)")
    func case7_1_2_framesAfterClose() throws {
        try withEchoServer { server in
            let client = try RawWebSocketClient.connect(port: server.port)
            try client.send(RawWebSocketClient.frame(opcode: Op.close, payload: [0x03, 0xE8])
                + RawWebSocketClient.frame(opcode: Op.close, payload: [0x03, 0xE8])
                + RawWebSocketClient.frame(opcode: Op.ping, payload: Array("ping".utf8))
                + RawWebSocketClient.frame(opcode: Op.text, payload: Array("text".utf8)))
            let reply = try client.readFrame()
            #expect(reply.opcode == Op.close && reply.closeCode == 1000)
            #expect(try client.readToEOF().isEmpty, "nothing may follow the close reply (§5.5.1)")
        }
    }

    @Test("Autobahn 7.1.5/7.1.6: a close in the middle of a fragmented message ends it without echoing the fragments")
    func case7_1_5_closeMidFragments() throws {
        try withEchoServer { server in
            let client = try RawWebSocketClient.connect(port: server.port)
            try client.sendFrame(opcode: Op.text, payload: Array("fragment1".utf8), fin: false)
            try client.sendClose(code: 1000)
            try client.sendFrame(opcode: Op.continuation, payload: Array("fragment2".utf8))
            let reply = try client.readFrame()
            #expect(reply.opcode == Op.close && reply.closeCode == 1000)
        }
    }

    @Test("Autobahn 7.3.1: a close without payload is answered with a close without status code (§7.1.5 1005)")
    func case7_3_1_emptyClose() throws {
        try withEchoServer { server in
            let client = try RawWebSocketClient.connect(port: server.port)
            try client.sendClose(code: nil)
            let reply = try client.readFrame()
            #expect(reply.opcode == Op.close && reply.payload.isEmpty)
            try client.waitForEOF()
        }
    }

    @Test("Autobahn 7.3.2: a close with a 1-byte payload fails with 1002 (§5.5.1)")
    func case7_3_2_oneByteClosePayload() throws {
        try withEchoServer { server in
            let client = try RawWebSocketClient.connect(port: server.port)
            try client.sendFrame(opcode: Op.close, payload: [0x03])
            #expect(try client.readCloseCode() == 1002)
        }
    }

    @Test("Autobahn 7.3.3-7.3.5: close 1000 with no, short and 123-byte reasons is echoed with code 1000",
          arguments: [0, 5, 123])
    func case7_3_closeWithReason(reasonLength: Int) throws {
        try withEchoServer { server in
            let client = try RawWebSocketClient.connect(port: server.port)
            try client.sendClose(code: 1000, reason: Array(repeating: UInt8(ascii: "*"), count: reasonLength))
            #expect(try client.readCloseCode() == 1000)
        }
    }

    @Test("Autobahn 7.3.6: close with a 124-byte reason (payload 126 > 125) fails with 1002 (§5.5)")
    func case7_3_6_reasonTooLong() throws {
        try withEchoServer { server in
            let client = try RawWebSocketClient.connect(port: server.port)
            try client.sendClose(code: 1000, reason: Array(repeating: UInt8(ascii: "*"), count: 124))
            #expect(try client.readCloseCode() == 1002)
        }
    }

    @Test("Autobahn 7.5.1: a close reason that is invalid UTF-8 fails with 1007 (§5.5.1, §8.1)")
    func case7_5_1_invalidUTF8Reason() throws {
        try withEchoServer { server in
            let client = try RawWebSocketClient.connect(port: server.port)
            try client.sendClose(code: 1000, reason: Self.kosme + [0xF4, 0x90, 0x80, 0x80] + Array("edited".utf8))
            #expect(try client.readCloseCode() == 1007)
        }
    }

    @Test("Autobahn 7.7.x: valid close codes are echoed back (§7.4.1, §7.4.2)",
          arguments: [UInt16(1000), 1001, 1002, 1003, 1007, 1008, 1009, 1010, 1011, 3000, 3999, 4000, 4999])
    func case7_7_validCloseCodes(code: UInt16) throws {
        try withEchoServer { server in
            let client = try RawWebSocketClient.connect(port: server.port)
            try client.sendClose(code: code)
            #expect(try client.readCloseCode() == code)
            try client.waitForEOF()
        }
    }

    @Test("Autobahn 7.9.x: invalid close codes fail with 1002 (0-999, 1004-1006, 1015, 1016-2999, ≥ 5000; §7.4)",
          arguments: [UInt16(0), 999, 1004, 1005, 1006, 1015, 1016, 1100, 2000, 2999, 5000, 65535])
    func case7_9_invalidCloseCodes(code: UInt16) throws {
        try withEchoServer { server in
            let client = try RawWebSocketClient.connect(port: server.port)
            try client.sendClose(code: code)
            #expect(try client.readCloseCode() == 1002)
            try client.waitForEOF()
        }
    }
}
