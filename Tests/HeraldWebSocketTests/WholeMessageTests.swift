import HeraldTestSupport
import HeraldWebSocket
import Testing

/// `wholeMessage(in:at:maxPayload:)`: which frames a transport may take straight from a read, and that taking them
/// that way (the rest fed to the machine) is indistinguishable from feeding everything to the machine.
@Suite("Whole messages taken from the read")
struct WholeMessageTests {
    static func frame(in bytes: [UInt8], at offset: Int = 0, machine: WebSocketStateMachine = WebSocketStateMachine(role: .server),
                      maxPayload: Int = 1024) -> WholeMessageFrame? {
        var machine = machine
        return bytes.withUnsafeBytes { machine.wholeMessage(in: $0, at: offset, maxPayload: maxPayload) }
    }

    static func unmasked(_ frame: WholeMessageFrame, in bytes: [UInt8]) -> [UInt8] {
        var payload = [UInt8](repeating: 0, count: frame.payload.count)
        bytes.withUnsafeBytes { input in payload.withUnsafeMutableBytes { frame.unmask(from: input, into: $0) } }
        return payload
    }

    @Test("RFC 6455 §5.2, §5.3: a final masked text frame is a whole message; its payload unmasks to the text sent")
    func finalMaskedText() throws {
        let bytes = clientFrame(.text, "héllo") + clientFrame(.binary, [1, 2, 3])
        let first = try #require(Self.frame(in: bytes))
        #expect(first.opcode == .text)
        #expect(first.payload == 6..<12)  // 2-byte header, 4-byte key, 6 bytes of UTF-8
        #expect(Self.unmasked(first, in: bytes) == Array("héllo".utf8))
        let second = try #require(Self.frame(in: bytes, at: first.end))
        #expect(second.opcode == .binary)
        #expect(Self.unmasked(second, in: bytes) == [1, 2, 3])
        #expect(second.end == bytes.count)
    }

    @Test("RFC 6455 §5.2: a 16-bit length is read; an empty payload is a whole message too")
    func sixteenBitLengthAndEmpty() throws {
        let long = [UInt8](repeating: 0x61, count: 300)
        let bytes = clientFrame(.text, long) + clientFrame(.text, [])
        let first = try #require(Self.frame(in: bytes))
        #expect(first.payload == 8..<308)
        #expect(Self.unmasked(first, in: bytes) == long)
        let empty = try #require(Self.frame(in: bytes, at: first.end))
        #expect(empty.payload.isEmpty && empty.end == bytes.count)
    }

    @Test("Declined, left to the machine: fragments, continuations, control frames, extension bits, 64-bit lengths")
    func declinedFrames() {
        #expect(Self.frame(in: clientFrame(.text, "frag", fin: false)) == nil)
        #expect(Self.frame(in: clientFrame(.continuation, "x")) == nil)
        #expect(Self.frame(in: clientFrame(.ping, "p")) == nil)
        #expect(Self.frame(in: clientFrame(.close, hex("03 E8"))) == nil)
        var rsv1 = clientFrame(.text, "x")
        rsv1[0] |= 0x40
        #expect(Self.frame(in: rsv1) == nil)
        // 127: a 64-bit length, never needed below the fast path's size.
        #expect(Self.frame(in: hex("81 FF 00 00 00 00 00 00 00 01 37 FA 21 3D 56")) == nil)
    }

    @Test("RFC 6455 §5.1: a server declines an unmasked frame and a client a masked one (the machine fails them)")
    func maskingByRole() {
        #expect(Self.frame(in: serverFrame(.text, Array("x".utf8))) == nil)
        let client = WebSocketStateMachine(role: .client)
        #expect(Self.frame(in: clientFrame(.text, "x"), machine: client) == nil)
        #expect(Self.frame(in: serverFrame(.text, Array("x".utf8)), machine: client)?.maskKey == nil)
    }

    @Test("Declined: a frame not all in the input, one over maxPayload or over the machine's limits")
    func incompleteOrLarge() {
        let bytes = clientFrame(.text, [UInt8](repeating: 0x61, count: 200))
        for cut in 0..<bytes.count { #expect(Self.frame(in: Array(bytes[..<cut])) == nil, "cut at \(cut)") }
        #expect(Self.frame(in: bytes, maxPayload: 199) == nil)
        #expect(Self.frame(in: bytes, maxPayload: 200) != nil)
        let small = WebSocketStateMachine(role: .server, limits: WebSocketLimits(maxFrameSize: 100, maxMessageSize: 1000))
        #expect(Self.frame(in: bytes, machine: small) == nil)
    }

    @Test("Declined while a fragmented message is unfinished or a frame is half read, and after the close started")
    func declinedByMachineState() {
        var machine = WebSocketStateMachine(role: .server)
        machine.receive(clientFrame(.text, "frag", fin: false), now: 0)
        #expect(Self.frame(in: clientFrame(.text, "x"), machine: machine) == nil)

        var halfRead = WebSocketStateMachine(role: .server)
        halfRead.receive(Array(clientFrame(.text, "abc").prefix(3)), now: 0)
        #expect(Self.frame(in: clientFrame(.text, "x"), machine: halfRead) == nil)

        var closing = WebSocketStateMachine(role: .server)
        var output: [UInt8] = []
        _ = closing.close(code: .normal, reason: "", into: &output)
        #expect(Self.frame(in: clientFrame(.text, "x"), machine: closing) == nil)
    }

    /// Feeds `input` in `ranges` as the server's session does: whole messages taken first (a text checked for UTF-8,
    /// else left to the machine), the rest given to the machine.
    static func transcriptTakingWholeMessages(_ input: [UInt8], ranges: [Range<Int>], limits: WebSocketLimits) -> Transcript {
        var session = ConnectionSession(role: .server, limits: limits)
        for range in ranges {
            let chunk = Array(input[range])
            var offset = 0
            while let frame = Self.frame(in: chunk, at: offset, machine: session.connection, maxPayload: 64) {
                let payload = unmasked(frame, in: chunk)
                guard frame.opcode != .text || UTF8Validator.isValid(payload) else { break }
                session.events.append(frame.opcode == .text ? .text(payload) : .binary(payload))
                offset = frame.end
            }
            if offset < chunk.count { session.feed(Array(chunk[offset...])) }
        }
        return session.transcript
    }

    @Test("Taking whole messages first changes nothing: same events, bytes written and state as the machine alone, for mutated traffic in random chunks")
    func sameTranscriptAsTheMachine() {
        let base = clientFrame(.text, "hello") + clientFrame(.text, "κόσμε") + clientFrame(.text, "frag", fin: false)
            + clientFrame(.ping, "p") + clientFrame(.continuation, "ment") + clientFrame(.binary, [UInt8](repeating: 9, count: 70))
            + clientFrame(.binary, [1, 2]) + clientFrame(.text, [0xCE]) + clientFrame(.text, "after") + clientFrame(.close, hex("03 E8"))
        let limits = WebSocketLimits(maxFrameSize: 100, maxMessageSize: 150)
        var mismatches: [UInt64] = []
        for seed in UInt64(1)...400 {
            var generator = SeededGenerator(seed: seed)
            var input = base
            // Seed 1 is the traffic unchanged; the others flip one to three bits anywhere.
            if seed > 1 {
                for _ in 0..<(1 + Int(generator.next() % 3)) {
                    let index = Int(generator.next() % UInt64(input.count))
                    input[index] ^= UInt8(1) << UInt8(generator.next() % 8)
                }
            }
            let ranges = seed % 4 == 0 ? [0..<input.count] : ParserVerifier.ranges(for: .seeded(seed), count: input.count, maxChunk: 40)
            var machineAlone = ConnectionSession(role: .server, limits: limits)
            for range in ranges { machineAlone.feed(Array(input[range])) }
            if Self.transcriptTakingWholeMessages(input, ranges: ranges, limits: limits) != machineAlone.transcript { mismatches.append(seed) }
        }
        #expect(mismatches.isEmpty, "seeds \(mismatches.prefix(5))")
    }
}
