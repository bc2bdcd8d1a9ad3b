import HeraldTestSupport
import HeraldWebSocket
import Testing

/// RFC 6455 §5.2/§5.7 frame layout, lengths and masking, fed every way ParserVerifier knows.
@Suite("Frame parsing (RFC 6455 §5.2)")
struct FrameParserTests {
    @Test("RFC 6455 §5.7: masked \"Hello\" from a client is a text message")
    func rfcMaskedHello() {
        // 81 = FIN+text, 85 = MASK+length 5, 37 FA 21 3D = key, then "Hello" masked.
        expectConnection(hex("81 85 37 FA 21 3D 7F 9F 4D 51 58"), events: [.text("Hello")])
    }

    @Test("RFC 6455 §5.7: unmasked \"Hello\" from a server is a text message at a client")
    func rfcUnmaskedHelloAtClient() {
        // 81 = FIN+text, 05 = unmasked length 5, "Hello".
        expectConnection(role: .client, hex("81 05 48 65 6C 6C 6F"), events: [.text("Hello")])
    }

    @Test("RFC 6455 §5.7: fragmented unmasked text \"Hel\" + \"lo\" at a client (Autobahn 5.3)")
    func case5_3_rfcFragmentedHello() {
        // 01 03 "Hel" = text without FIN; 80 02 "lo" = FIN+continuation.
        expectConnection(role: .client, hex("01 03 48 65 6C 80 02 6C 6F"), events: [.text("Hello")])
    }

    @Test("RFC 6455 §5.7: masked pong is delivered as a pong event, nothing written")
    func rfcMaskedPong() {
        // 8A = FIN+pong, 85 = MASK+5, key, "Hello" masked.
        expectConnection(hex("8A 85 37 FA 21 3D 7F 9F 4D 51 58"), events: [.pong(Array("Hello".utf8))])
    }

    @Test("RFC 6455 §5.5.2: ping is answered with a pong carrying the same payload (Autobahn 2.2)")
    func case2_2_pingEchoedInPong() {
        // 89 = FIN+ping, 85 = MASK+5, key, "Hello" masked -> server writes 8A 05 "Hello".
        expectConnection(hex("89 85 37 FA 21 3D 7F 9F 4D 51 58"), events: [.ping(Array("Hello".utf8))],
                         writes: hex("8A 05 48 65 6C 6C 6F"))
    }

    @Test("RFC 6455 §5.5.2: empty ping gets an empty pong (Autobahn 2.1)")
    func case2_1_emptyPing() {
        // 89 80 = FIN+ping, MASK, length 0, then the key.
        expectConnection(hex("89 80 37 FA 21 3D"), events: [.ping([])], writes: hex("8A 00"))
    }

    @Test("RFC 6455 §5.5.2: 125-byte ping is echoed (Autobahn 2.4)")
    func case2_4_maximalPing() {
        let payload = (0..<125).map { UInt8($0) }
        expectConnection(clientFrame(.ping, payload), events: [.ping(payload)], writes: serverFrame(.pong, payload))
    }

    @Test("RFC 6455 §5.2: binary lengths 0, 125, 126, 127, 65535, 65536 use the 7/16/64-bit forms (Autobahn 1.2.x)",
          arguments: [
              // (length, header a server encodes: 82 = FIN+binary, then the length field)
              (0, "82 00"), (125, "82 7D"), (126, "82 7E 00 7E"), (127, "82 7E 00 7F"),
              (65535, "82 7E FF FF"), (65536, "82 7F 00 00 00 00 00 01 00 00"),
          ])
    func binaryLengths(length: Int, serverHeader: String) {
        let payload = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
        // The server's encoding of the length is exactly the minimal form (§5.2).
        let encoded = serverFrame(.binary, payload)
        #expect(hexString(Array(encoded.prefix(hex(serverHeader).count))) == hexString(hex(serverHeader)))
        #expect(encoded.count == hex(serverHeader).count + length)
        // A client frame of that length parses back to the same bytes, however it is chunked.
        let frame = clientFrame(.binary, payload)
        #expect(frame[1] & 0x80 == 0x80, "client frames carry the MASK bit")
        expectConnection(frame, events: [.binary(payload)])
        // And a server frame of that length parses at a client.
        expectConnection(role: .client, encoded, events: [.binary(payload)])
    }

    @Test("RFC 6455 §5.1: a server fails an unmasked client frame with 1002")
    func unmaskedFrameAtServer() {
        // 81 05 "Hello": no MASK bit -> 88 02 03 EA.
        expectConnection(hex("81 05 48 65 6C 6C 6F"), events: [failure(.protocolError)], writes: ServerClose.protocolError, state: .closed)
    }

    @Test("RFC 6455 §5.1: a client fails a masked server frame with 1002")
    func maskedFrameAtClient() {
        // 81 85 key "Hello": MASK bit from a server -> the client writes a (masked) close 1002.
        expectConnection(role: .client, hex("81 85 37 FA 21 3D 7F 9F 4D 51 58"), events: [failure(.protocolError)],
                         writes: ServerClose.protocolError, state: .closed)
    }

    @Test("RFC 6455 §5.2: RSV1 without a negotiated extension fails with 1002 at the first byte (Autobahn 3.1)")
    func case3_1_rsv1() {
        // C1 = FIN+RSV1+text; nothing after the first byte is needed to fail.
        expectConnection(hex("C1"), events: [failure(.protocolError)], writes: ServerClose.protocolError, state: .closed)
    }

    @Test("RFC 6455 §5.2: RSV2/RSV3/all RSV bits fail with 1002 (Autobahn 3.2-3.7)",
          arguments: ["A1", "91", "F1", "E2", "D2", "B2"])
    func case3_x_reservedBits(firstByte: String) {
        expectConnection(hex(firstByte + " 85 37 FA 21 3D 7F 9F 4D 51 58"), events: [failure(.protocolError)],
                         writes: ServerClose.protocolError, state: .closed)
    }

    @Test("RFC 6455 §5.2: reserved opcodes 3-7 and 11-15 fail with 1002 (Autobahn 4.1.x, 4.2.x)",
          arguments: [0x3, 0x4, 0x5, 0x6, 0x7, 0xB, 0xC, 0xD, 0xE, 0xF] as [UInt8])
    func case4_reservedOpcodes(opcode: UInt8) {
        // 0x80|opcode = FIN + reserved opcode; fails before the length byte.
        expectConnection([0x80 | opcode, 0x80, 0x37, 0xFA, 0x21, 0x3D], events: [failure(.protocolError)],
                         writes: ServerClose.protocolError, state: .closed)
    }

    @Test("RFC 6455 §5.2: a reserved opcode after a valid message fails after delivering it (Autobahn 4.1.3)")
    func case4_1_3_reservedOpcodeAfterMessage() {
        let input = clientFrame(.text, "Hello") + hex("85 80 37 FA 21 3D") + clientFrame(.ping, [])
        expectConnection(input, events: [.text("Hello"), failure(.protocolError)], writes: ServerClose.protocolError, state: .closed)
    }

    @Test("RFC 6455 §5.5: control frame longer than 125 bytes fails with 1002 at its second byte (Autobahn 2.5)")
    func case2_5_pingTooLong() {
        // 89 = FIN+ping, FE = MASK+126 (16-bit length follows): invalid for a control frame.
        expectConnection(hex("89 FE 00 7E"), events: [failure(.protocolError)], writes: ServerClose.protocolError, state: .closed)
    }

    @Test("RFC 6455 §5.5: fragmented ping fails with 1002 (Autobahn 5.1)")
    func case5_1_fragmentedPing() {
        // 09 = ping without FIN.
        expectConnection(hex("09 82 37 FA 21 3D 00 00"), events: [failure(.protocolError)], writes: ServerClose.protocolError, state: .closed)
    }

    @Test("RFC 6455 §5.5: fragmented pong fails with 1002 (Autobahn 5.2)")
    func case5_2_fragmentedPong() {
        expectConnection(hex("0A 80 37 FA 21 3D"), events: [failure(.protocolError)], writes: ServerClose.protocolError, state: .closed)
    }

    @Test("RFC 6455 §5.2: a 64-bit length with the top bit set fails with 1002 at that byte")
    func topBitOfLength() {
        // 82 FF = FIN+binary, MASK+127; 80 ... = most significant bit set.
        expectConnection(hex("82 FF 80 00 00 00 00 00 00 00"), events: [failure(.protocolError)],
                         writes: ServerClose.protocolError, state: .closed)
        var session = ConnectionSession(role: .server)
        for byte in hex("82 FF 80") { session.feed([byte]) }
        #expect(session.events.map(withoutReason) == [failure(.protocolError)], "fails at the third byte, before the rest of the length")
    }

    @Test("RFC 6455 §10.4: a frame over maxFrameSize fails with 1009 before any payload is read")
    func frameOverLimit() {
        let limits = WebSocketLimits(maxFrameSize: 1024, maxMessageSize: 4096)
        // 82 FE 04 01 = FIN+binary, MASK, 16-bit length 1025: one over the limit; no payload follows.
        expectConnection(limits: limits, hex("82 FE 04 01"), events: [failure(.messageTooBig)], writes: ServerClose.tooBig, state: .closed)
        // Exactly at the limit is fine.
        let payload = [UInt8](repeating: 0x41, count: 1024)
        expectConnection(limits: limits, clientFrame(.binary, payload), events: [.binary(payload)])
    }

    @Test("RFC 6455 §10.4: a 1 GiB header fails with 1009 as soon as the length bytes seen guarantee it")
    func gigabyteHeaderFailsEarly() {
        // 82 FF 00 00 00 00 40 00 00 00 = FIN+binary, MASK, 64-bit length 2^30.
        let header = hex("82 FF 00 00 00 00 40 00 00 00")
        var session = ConnectionSession(role: .server)
        for byte in header { session.feed([byte]) }
        #expect(session.events.map(withoutReason) == [failure(.messageTooBig)])
        #expect(session.output == ServerClose.tooBig)
        // The 7th byte (0x40) is the first that proves the length exceeds 16 MiB.
        #expect(session.eventOffsets == [7])
    }

    @Test("RFC 6455 §5.3: unmasking works for every chunk phase")
    func maskingPhases() {
        let payload = Array("The quick brown fox jumps over the lazy dog, twice: the quick brown fox.".utf8)
        let key = MaskKey((0x01, 0x82, 0x43, 0xF4))
        var masked = payload
        Masking.apply(key, to: &masked, range: 0..<masked.count)
        #expect(masked != payload)
        // Byte i is XORed with key[i % 4] (§5.3).
        #expect(masked[5] == payload[5] ^ 0x82)
        for split in 0...payload.count {
            var copy = masked
            Masking.apply(key, to: &copy, range: 0..<split, phase: 0)
            Masking.apply(key, to: &copy, range: split..<copy.count, phase: split)
            #expect(copy == payload, "split at \(split)")
        }
    }

    @Test("RFC 6455 §5.3: unmasking while copying gives byte i XOR key[i % 4], for every length around the word sizes and from any source alignment")
    func maskingWhileCopying() {
        let key = MaskKey((0x9C, 0x01, 0xFF, 0x5A))
        let source = (0..<80).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
        for start in 0..<3 {
            for count in 0...(source.count - start) {
                let input = Array(source[start..<(start + count)])
                let expected = input.enumerated().map { $0.element ^ key.byte(at: $0.offset) }
                // One spare byte either side: nothing outside the destination is written.
                var output = [UInt8](repeating: 0xEE, count: count + 2)
                input.withUnsafeBytes { input in
                    output.withUnsafeMutableBytes { output in
                        Masking.copy(key, from: input.baseAddress ?? UnsafeRawPointer(output.baseAddress!), to: output.baseAddress! + 1, count: count)
                    }
                }
                #expect(Array(output[1..<(count + 1)]) == expected, "start \(start), count \(count)")
                #expect(output.first == 0xEE && output.last == 0xEE)
            }
        }
    }

    @Test("§8.1 shortcut: the unmasking copy says a payload is all ASCII exactly when no unmasked byte is above 0x7F, wherever the one such byte lies (whole words, the 8-byte step, the byte tail)")
    func maskingWhileCopyingReportsASCII() {
        let key = MaskKey((0x9C, 0x01, 0xFF, 0x5A))
        func copy(_ plain: [UInt8]) -> (bytes: [UInt8], ascii: Bool) {
            let masked = plain.enumerated().map { $0.element ^ key.byte(at: $0.offset) }
            var output = [UInt8](repeating: 0, count: plain.count)
            let ascii = masked.withUnsafeBytes { input in
                output.withUnsafeMutableBytes { output in
                    Masking.copy(key, from: input.baseAddress!, to: output.baseAddress!, count: plain.count)
                }
            }
            return (output, ascii)
        }
        for count in 1...41 {
            let plain = (0..<count).map { UInt8(0x20 + $0 % 0x5F) }
            let copied = copy(plain)
            #expect(copied.bytes == plain && copied.ascii, "count \(count)")
            for position in 0..<count {
                for high: UInt8 in [0x80, 0xC3, 0xFF] {
                    var text = plain
                    text[position] = high
                    let copied = copy(text)
                    #expect(copied.bytes == text && !copied.ascii, "count \(count), byte \(high) at \(position)")
                }
            }
        }
    }

    @Test("RFC 6455 §5.3: client frames from a connection are masked with a fresh key each time")
    func clientMasksEveryFrame() {
        var client = WebSocketStateMachine(role: .client)
        var keys: Set<[UInt8]> = []
        for _ in 0..<32 {
            var out: [UInt8] = []
            client.sendText("same text", into: &out)
            #expect(out[1] & 0x80 == 0x80)
            keys.insert(Array(out[2..<6]))
            #expect(decodeFrames(out, sentBy: .client) == [DecodedFrame(fin: true, opcode: .text, payload: Array("same text".utf8), masked: true)])
        }
        #expect(keys.count > 28, "32 frames should practically never share keys")
    }

    @Test("RFC 6455 §5.2: the server never masks; FrameEncoder.serverTextFrame is FIN+text with the minimal length")
    func serverTextFrameBytes() {
        // 81 05 "Hello": FIN+text, unmasked length 5.
        #expect(FrameEncoder.serverTextFrame("Hello") == hex("81 05 48 65 6C 6C 6F"))
        var out: [UInt8] = []
        FrameEncoder.encodeServerFrame(opcode: .text, payload: Array("Hel".utf8), fin: false, into: &out)
        // 01 03 "Hel": text without FIN.
        #expect(out == hex("01 03 48 65 6C"))
        #expect(FrameEncoder.encodeClientFrameForTest("Hello") == hex("81 85 37 FA 21 3D 7F 9F 4D 51 58"))
    }

    @Test("FrameParser: once failed it stays failed and consumes nothing more")
    func staysFailed() {
        var parser = FrameParser(role: .server)
        var cursor = 0
        let bad = hex("83 80")
        let first = bad.withUnsafeBytes { parser.next($0, cursor: &cursor) }
        guard case .failed = first else { Issue.record("expected failure, got \(first)"); return }
        let good = clientFrame(.text, "ok")
        cursor = 0
        let second = good.withUnsafeBytes { parser.next($0, cursor: &cursor) }
        guard case .failed = second else { Issue.record("expected failure again, got \(second)"); return }
        #expect(cursor == good.count)
        // The connection ignores input after failing, too.
        var session = ConnectionSession(role: .server)
        session.feed(bad)
        session.feed(good)
        #expect(session.events.map(withoutReason) == [failure(.protocolError)])
        #expect(session.output == ServerClose.protocolError)
    }
}

extension FrameEncoder {
    /// The RFC 6455 §5.7 masked "Hello" through the public encoder with the RFC's key.
    static func encodeClientFrameForTest(_ text: String) -> [UInt8] {
        var out: [UInt8] = []
        encodeClientFrame(opcode: .text, payload: Array(text.utf8), maskKey: (0x37, 0xFA, 0x21, 0x3D), into: &out)
        return out
    }
}
