import HeraldBytes
import HeraldDeflate
import HeraldNet
import HeraldWebSocket
import Testing

@testable import HeraldServer

/// The fan-out frame of one loop: deflated once per configuration for every session that negotiated
/// permessage-deflate without server context takeover (RFC 7692 §7.1.1.1), the plain frame for everyone else.
@Suite("Fan-out compression (RFC 7692)")
struct FanOutCompressionTests {
    static func serverFrame(_ payload: [UInt8], opcode: WebSocketOpcode = .text, fin: Bool = true) -> OutgoingFrame {
        OutgoingFrame(opcode, payload: payload, fin: fin)
    }

    /// The payload of a whole unmasked frame, its header read by hand (2, 4 or 10 bytes, RFC 6455 §5.2).
    static func payload(of frame: SharedBytes) -> [UInt8] {
        let bytes = frame.bytes
        let length7 = Int(bytes[1] & 0x7F)
        return Array(bytes[(length7 == 127 ? 10 : (length7 == 126 ? 4 : 2))...])
    }

    static func inflate(_ frame: SharedBytes) throws -> [UInt8] {
        let client = try PerMessageDeflate(parameters: PerMessageDeflateParameters(serverNoContextTakeover: true), role: .client)
        var text: [UInt8] = []
        let payload = Self.payload(of: frame)
        #expect(payload.withUnsafeBytes { client.decompress($0, appendingTo: &text, limit: 1 << 20) } == nil)
        #expect(client.finishMessage(appendingTo: &text, limit: 1 << 20) == nil)
        return text
    }

    @Test("RFC 7692 §6: one compressed frame (RSV1) per configuration, shared by reference; plain sessions get the original")
    func compressesOncePerConfiguration() throws {
        let json = Array(String(repeating: #"{"type":"event","event":"message","text":"hello there"}"#, count: 4).utf8)
        let plainFrame = Self.serverFrame(json)
        let plain = plainFrame.bytes
        var fanOut = FanOutFrame(plainFrame)
        let options = PerMessageDeflateOptions()
        let first = fanOut.frame(for: .shared(windowBits: 15, options: options))
        let second = fanOut.frame(for: .shared(windowBits: 15, options: options))
        let narrow = fanOut.frame(for: .shared(windowBits: 10, options: options))
        #expect(first === second)  // compressed once, shared
        #expect(first !== plain && narrow !== first)
        #expect(fanOut.frame(for: .none) === plain)
        #expect(first.bytes[0] == 0xC1)  // FIN + RSV1 + text
        #expect(first.count < plain.count)
        #expect(try Self.inflate(first) == json)
        #expect(try Self.inflate(narrow) == json)
    }

    @Test("RFC 7692 §6: short payloads, control frames and fragments go out as they are")
    func leavesOthersAlone() {
        let shared = OutgoingCompression.shared(windowBits: 15, options: PerMessageDeflateOptions())
        let short = Self.serverFrame(Array(#"{"type":"response","id":1}"#.utf8))
        var shortFanOut = FanOutFrame(short)
        #expect(shortFanOut.frame(for: shared) === short.bytes)
        let ping = Self.serverFrame(Array(repeating: 0x61, count: 100), opcode: .ping)
        var pingFanOut = FanOutFrame(ping)
        #expect(pingFanOut.frame(for: shared) === ping.bytes)
        let fragment = Self.serverFrame(Array(repeating: 0x61, count: 200), fin: false)
        var fragmentFanOut = FanOutFrame(fragment)
        #expect(fragmentFanOut.frame(for: shared) === fragment.bytes)
    }

    @Test("RFC 6455 §5.2: with 7-, 16- and 64-bit payload lengths, an outgoing frame knows where its payload starts")
    func layouts() {
        for size in [0, 125, 126, 65_535, 65_536] {
            let payload = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 7) }
            let frame = Self.serverFrame(payload)
            #expect(frame.payloadCount == size)
            #expect(frame.payloadOffset == FrameEncoder.headerSize(payloadLength: size, masked: false))
            #expect(frame.withPayload { Array($0) } == payload)
            #expect(Self.payload(of: frame.bytes) == payload)
        }
    }
}

extension FanOutCompressionTests {
    @Test("RFC 6455 §5.2: the in-place text frame equals FrameEncoder's, for 7-, 16- and 64-bit lengths")
    func inPlaceTextFrame() {
        for size in [0, 1, 125, 126, 65_535, 65_536] {
            let payload = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31) }
            var expected: [UInt8] = []
            FrameEncoder.encodeServerFrame(opcode: .text, payload: payload, into: &expected)
            #expect(OutgoingFrame.text(payload).bytes.bytes == expected, "size \(size)")
        }
    }
}
