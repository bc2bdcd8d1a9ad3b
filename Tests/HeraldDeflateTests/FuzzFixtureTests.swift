import HeraldDeflate
import HeraldWebSocket
import Testing

/// Inputs the libFuzzer harnesses in Tests/Fuzz found, kept as byte fixtures so the fix stays fixed without a fuzzer.
@Suite("Fuzz findings: permessage-deflate")
struct DeflateFuzzFixtureTests {
    /// Found by `fuzz-websocket-frames`: a compressed text message whose inflated bytes are invalid UTF-8 AND longer
    /// than the limit failed with 1009 when it arrived in one read but 1007 when it arrived in small pieces, because
    /// the inflate step that passed the limit returned before its output was UTF-8 checked.
    ///
    /// Payload: raw deflate of FF followed by 400 × "a" (`fa 9f 38 0a 06 15 00 00`, sync-flush tail removed, RFC 7692
    /// §7.2.1), sent as one masked text frame with RSV1; the limit is 300 bytes.
    static let invalidUTF8OverLimit: [UInt8] = [
        0xC1, 0x88,  // FIN + RSV1 ("compressed", RFC 7692 §6) + text; masked, 8-byte payload
        0x00, 0x00, 0x00, 0x00,  // mask key 0 (legal, keeps the payload readable)
        0xFA, 0x9F, 0x38, 0x0A, 0x06, 0x15, 0x00, 0x00,
    ]

    @Test("RFC 6455 §8.1: invalid UTF-8 inside the limit is 1007 even when the same inflate step passes the limit (1009)",
          arguments: [0, 1, 3, 9])
    func invalidUTF8BeforeLimitWinsInEveryChunking(_ chunkSize: Int) throws {
        let limits = WebSocketLimits(maxFrameSize: 300, maxMessageSize: 300)
        let deflate = try PerMessageDeflate(parameters: PerMessageDeflateParameters(), role: .server)
        var connection = WebSocketStateMachine(role: .server, limits: limits, compression: deflate)
        let wire = Self.invalidUTF8OverLimit
        var events: [WebSocketEvent] = []
        var output: [UInt8] = []
        let step = chunkSize == 0 ? wire.count : chunkSize  // 0: the whole frame in one read
        for start in stride(from: 0, to: wire.count, by: step) {
            connection.receive(Array(wire[start..<min(start + step, wire.count)]), output: &output) { events.append($0) }
        }
        #expect(events.count == 1)
        guard case .failed(let error) = events.first else { Issue.record("expected a failure, got \(events)"); return }
        #expect(error.closeCode == .invalidPayload)
        #expect(output == [0x88, 0x02, 0x03, 0xEF])  // close 1007 from the server
        #expect(connection.state == .closed)
    }

    /// The seed `bomb-1MiB-zeros` of `fuzz-inflate`: 1 MiB of zeros is about 1 KiB of deflate. Against a 4096-byte
    /// limit the inflater must stop at limit + 1 bytes and report 1009, in one call or in many.
    @Test("RFC 7692 §8.1: the fuzz seed bomb stops at the limit plus one byte with 1009", arguments: [1, 37, 1 << 20])
    func seedBombStopsAtLimit(_ chunkSize: Int) throws {
        let limit = 4096
        let compressed = try SharedMessageCompressor(windowBits: 15).compressOnce([UInt8](repeating: 0, count: 1 << 20))
        let deflate = try PerMessageDeflate(parameters: PerMessageDeflateParameters(), role: .server)
        var message: [UInt8] = []
        var failure: WebSocketProtocolError?
        for start in stride(from: 0, to: compressed.count, by: chunkSize) where failure == nil {
            failure = Array(compressed[start..<min(start + chunkSize, compressed.count)]).withUnsafeBytes {
                deflate.decompress($0, appendingTo: &message, limit: limit)
            }
        }
        if failure == nil { failure = deflate.finishMessage(appendingTo: &message, limit: limit) }
        #expect(failure?.closeCode == .messageTooBig)
        #expect(message.count == limit + 1)
        #expect(deflate.inflatedByteCount == limit + 1)
    }
}
