import HeraldDeflate
import HeraldWebSocket
import Testing

@Suite("permessage-deflate failures: bombs, bad data, RSV1 misuse")
struct SafetyTests {
    /// 10 MiB of zeros deflated by our own compressor (about 10 KiB on the wire).
    static func bomb() throws -> [UInt8] {
        let shared = try SharedMessageCompressor(windowBits: 15)
        return shared.compressOnce([UInt8](repeating: 0, count: 10 << 20))
    }

    @Test("RFC 7692 §8.1 / RFC 6455 §10.4: a 10 MiB bomb against a 1 MiB limit fails with 1009 after at most ~1 MiB")
    func compressionBomb() throws {
        let limit = 1 << 20
        let compressed = try Self.bomb()
        #expect(compressed.count < 64 << 10)
        var pair = try DeflatePair(limits: WebSocketLimits(maxFrameSize: limit, maxMessageSize: limit))
        let result = pair.server.feed(clientFrame(.binary, compressed, rsv1: true))
        #expect(result.events.count == 1)
        guard case .failed(let error) = result.events.first else { Issue.record("expected failure, got \(result.events)"); return }
        #expect(error.closeCode == .messageTooBig)
        #expect(result.output == [0x88, 0x02, 0x03, 0xF1])  // close 1009 from the server
        #expect(pair.serverDeflate.inflatedByteCount <= limit + 1)
        #expect(pair.serverDeflate.inflatedByteCount >= limit)
        #expect(pair.server.state == .closed)
    }

    @Test("The bomb also fails when it arrives in 1-byte and 1000-byte pieces", arguments: [1, 1000])
    func compressionBombChunked(_ chunk: Int) throws {
        let limit = 1 << 20
        var pair = try DeflatePair(limits: WebSocketLimits(maxFrameSize: limit, maxMessageSize: limit))
        let wire = clientFrame(.text, try Self.bomb(), rsv1: true)
        var events: [WebSocketEvent] = []
        var start = 0
        while start < wire.count {
            events += pair.server.feed(Array(wire[start..<min(start + chunk, wire.count)])).events
            start += chunk
        }
        #expect(events.count == 1)
        guard case .failed(let error) = events.first else { Issue.record("expected failure"); return }
        #expect(error.closeCode == .messageTooBig)
        #expect(pair.serverDeflate.inflatedByteCount <= limit + 1)
    }

    @Test("A message exactly at the limit is delivered")
    func exactlyAtLimit() throws {
        let limit = 100_000
        var pair = try DeflatePair(limits: WebSocketLimits(maxFrameSize: limit, maxMessageSize: limit))
        let message = [UInt8](repeating: 0x41, count: limit)
        var wire: [UInt8] = []
        pair.client.sendBinary(message, into: &wire)
        #expect(pair.server.feed(wire).events == [.binary(message)])
    }

    @Test("RFC 6455 §8.1: inflated text is UTF-8 validated (1007)")
    func invalidUTF8AfterInflate() throws {
        var pair = try DeflatePair()
        let shared = try SharedMessageCompressor()
        let compressed = shared.compressOnce(Array("valid prefix ".utf8) + [0xC0, 0xAF] + Array(" more".utf8))
        let result = pair.server.feed(clientFrame(.text, compressed, rsv1: true))
        guard case .failed(let error) = result.events.last else { Issue.record("expected failure"); return }
        #expect(error.closeCode == .invalidPayload)
        #expect(result.output == [0x88, 0x02, 0x03, 0xEF])
    }

    @Test("Data that is not deflate fails with 1007")
    func corruptDeflateData() throws {
        var pair = try DeflatePair()
        // 0xFF: BFINAL=1, BTYPE=11 (reserved) is invalid in RFC 1951.
        let result = pair.server.feed(clientFrame(.binary, [0xFF, 0xFF, 0xFF], rsv1: true))
        guard case .failed(let error) = result.events.last else { Issue.record("expected failure"); return }
        #expect(error.closeCode == .invalidPayload)
    }

    @Test("RFC 7692 §6.1: RSV1 on a control frame fails with 1002", arguments: [WebSocketOpcode.ping, .pong, .close])
    func rsv1OnControlFrame(_ opcode: WebSocketOpcode) throws {
        var pair = try DeflatePair()
        let result = pair.server.feed(clientFrame(opcode, [0x03, 0xE8], rsv1: true))
        #expect(result.events.map(\.closeCode) == [.protocolError])
        #expect(result.output == [0x88, 0x02, 0x03, 0xEA])
    }

    @Test("RFC 7692 §6: RSV1 on a continuation frame fails with 1002")
    func rsv1OnContinuation() throws {
        var pair = try DeflatePair()
        let wire = clientFrame(.text, Array("ab".utf8), fin: false, rsv1: false) + clientFrame(.continuation, [0x00], fin: true, rsv1: true)
        let result = pair.server.feed(wire)
        #expect(result.events.map(\.closeCode) == [.protocolError])
    }

    @Test("RFC 6455 §5.2: RSV1 without a negotiated extension fails with 1002")
    func rsv1WithoutNegotiation() {
        var server = WebSocketStateMachine(role: .server)
        let result = server.feed(clientFrame(.text, [0x00], rsv1: true))
        #expect(result.events.map(\.closeCode) == [.protocolError])
        #expect(result.output == [0x88, 0x02, 0x03, 0xEA])
    }

    @Test("An uncompressed message (RSV1 clear) is still accepted when deflate is negotiated")
    func plainMessageWithDeflate() throws {
        var pair = try DeflatePair()
        #expect(pair.server.feed(clientFrame(.text, Array("plain".utf8), rsv1: false)).events == [.text("plain")])
    }

    @Test("Negotiation never builds a compressor with window 8")
    func windowEightIsRefused() {
        #expect(throws: PerMessageDeflateError.self) {
            try PerMessageDeflate(parameters: PerMessageDeflateParameters(serverMaxWindowBits: 8), role: .server)
        }
        #expect(throws: PerMessageDeflateError.self) { try SharedMessageCompressor(windowBits: 8) }
    }
}

extension WebSocketEvent {
    /// The close code of a `.failed` event, nil otherwise.
    var closeCode: CloseCode? {
        if case .failed(let error) = self { return error.closeCode }
        return nil
    }
}
