import HeraldTestSupport
import HeraldWebSocket
import Testing

/// The parser reads a header that is all in the buffer in one step, and any other header byte by byte. The two paths
/// must agree on everything, errors and their texts included (RFC 6455 §5.2: each check at its deciding byte).
@Suite("Frame parsing: a whole header in one step equals byte by byte (RFC 6455 §5.2)")
struct FrameParserWholeHeaderTests {
    /// What a parser said, with payload pieces joined per frame so that chunking does not show.
    enum Said: Equatable {
        case header(FrameHeader)
        case payload([UInt8])
        case frameEnd(FrameHeader)
        case failed(CloseCode, String)
    }

    static func parse(_ input: [UInt8], role: WebSocketRole, limits: WebSocketLimits, piece: Int) -> [Said] {
        var parser = FrameParser(role: role, limits: limits)
        var said: [Said] = []
        var start = 0
        while start < input.count {
            let end = min(start + piece, input.count)
            Array(input[start..<end]).withUnsafeBytes { bytes in
                var cursor = 0
                while true {
                    switch parser.next(bytes, cursor: &cursor) {
                    case .needMore: return
                    case .header(let header): said.append(.header(header))
                    case .payload(let chunk, _):
                        if case .payload(let earlier) = said.last {
                            said[said.count - 1] = .payload(earlier + Array(chunk))
                        } else {
                            said.append(.payload(Array(chunk)))
                        }
                    case .frameEnd(let header): said.append(.frameEnd(header))
                    case .failed(let error):
                        said.append(.failed(error.closeCode, error.reason))
                        return
                    }
                }
            }
            if case .failed = said.last { break }
            start = end
        }
        return said
    }

    /// A random frame: any first byte (opcodes and RSV bits included), masked or not, 7- or 16-bit lengths around the
    /// limits below, sometimes a 64-bit one, then as many payload bytes as it announces (capped).
    static func randomFrame(_ random: inout SeededGenerator) -> [UInt8] {
        let first = UInt8(truncatingIfNeeded: random.next())
        let masked = random.next() % 8 != 0
        let length = [Int(random.next() % 126), 126 + Int(random.next() % 200), Int(random.next() % 600), 70_000][Int(random.next() % 4)]
        var frame = [first]
        if length < 126 {
            frame.append((masked ? 0x80 : 0) | UInt8(length))
        } else if length <= 0xFFFF {
            frame += [(masked ? 0x80 : 0) | 126, UInt8(length >> 8), UInt8(length & 0xFF)]
        } else {
            frame.append((masked ? 0x80 : 0) | 127)
            frame += (0..<8).map { UInt8(truncatingIfNeeded: length >> (8 * (7 - $0))) }
        }
        if masked { frame += random.bytes(4) }
        frame += random.bytes(min(length, 700))
        return frame
    }

    @Test("Property: 3,000 random runs of 1-4 frames, as a server and a client, whole and one byte at a time")
    func wholeHeaderEqualsByteByByte() {
        var random = SeededGenerator(seed: 0x5eed_f00d)
        let limits = WebSocketLimits(maxFrameSize: 400, maxMessageSize: 500)
        for run in 0..<3_000 {
            let input = (0..<(1 + Int(random.next() % 4))).flatMap { _ in Self.randomFrame(&random) }
            let role: WebSocketRole = run % 2 == 0 ? .server : .client
            let whole = Self.parse(input, role: role, limits: limits, piece: input.count)
            let bytewise = Self.parse(input, role: role, limits: limits, piece: 1)
            #expect(whole == bytewise, "run \(run), \(role): \(input.prefix(16))")
            if whole != bytewise { return }
        }
    }

    @Test("RFC 6455 §5.2: a 16-bit length over the limit fails at its high byte with the same text either way")
    func oversizedSixteenBitLength() {
        let limits = WebSocketLimits(maxFrameSize: 200, maxMessageSize: 200)
        // FIN+binary, MASK+126, length 0x0300 (768): the high byte alone exceeds 200.
        let input: [UInt8] = [0x82, 0xFE, 0x03, 0x00, 1, 2, 3, 4]
        let whole = Self.parse(input, role: .server, limits: limits, piece: input.count)
        #expect(whole == [.failed(.messageTooBig, "payload length exceeds the frame or message size limit")])
        #expect(whole == Self.parse(input, role: .server, limits: limits, piece: 1))
    }
}
