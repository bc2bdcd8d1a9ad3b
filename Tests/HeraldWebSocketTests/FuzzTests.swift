import HeraldTestSupport
import HeraldWebSocket
import Testing

/// Seeded pseudo-fuzzing: random bytes and random mutations of valid traffic, random chunking.
/// The properties: never trap; the result does not depend on chunking; at most one failure, and nothing after it
/// or after a close; a failure leaves the connection closed with exactly one close frame written.
@Suite("Seeded fuzz of the connection state machine")
struct FuzzTests {
    static func check(_ input: [UInt8], role: WebSocketRole, seed: UInt64, limits: WebSocketLimits) {
        var whole = ConnectionSession(role: role, limits: limits)
        whole.feed(input)
        var chunked = ConnectionSession(role: role, limits: limits)
        for range in ParserVerifier.ranges(for: .seeded(seed), count: input.count, maxChunk: 40) { chunked.feed(Array(input[range])) }
        #expect(whole.transcript == chunked.transcript, "seed \(seed)")

        let events = whole.events
        let terminal = events.firstIndex { if case .failed = $0 { return true }; if case .closed = $0 { return true }; return false }
        if let terminal {
            #expect(terminal == events.count - 1, "nothing after a failure or close (seed \(seed))")
            #expect(whole.connection.state == .closed)
        }
        if case .failed = events.last {
            // Exactly one close frame, and it is the last thing written.
            let frames = decodeFrames(whole.output, sentBy: role) ?? []
            #expect(frames.filter { $0.opcode == .close }.count == 1, "seed \(seed)")
            #expect(frames.last?.opcode == .close)
        }
    }

    @Test("Random bytes at a server and a client, random chunking")
    func randomBytes() {
        for seed in UInt64(1)...400 {
            var generator = SeededGenerator(seed: seed)
            let input = generator.bytes(Int(generator.next() % 200))
            Self.check(input, role: seed % 2 == 0 ? .server : .client, seed: seed, limits: WebSocketLimits(maxFrameSize: 300, maxMessageSize: 500))
        }
    }

    @Test("Mutated valid traffic (bit flips in masked client frames), random chunking")
    func mutatedTraffic() {
        let base = clientFrame(.text, "κόσμε hello", fin: false) + clientFrame(.ping, "p") + clientFrame(.continuation, "world")
            + clientFrame(.binary, [UInt8](repeating: 9, count: 130)) + clientFrame(.pong, []) + clientFrame(.close, hex("03 E8") + Array("ok".utf8))
        for seed in UInt64(1)...400 {
            var generator = SeededGenerator(seed: seed)
            var input = base
            for _ in 0..<(1 + Int(generator.next() % 3)) {
                let index = Int(generator.next() % UInt64(input.count))
                input[index] ^= UInt8(1) << UInt8(generator.next() % 8)
            }
            Self.check(input, role: .server, seed: seed, limits: .default)
        }
    }
}
