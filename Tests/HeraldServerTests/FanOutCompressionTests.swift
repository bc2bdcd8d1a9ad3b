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
    static func serverFrame(_ payload: [UInt8], opcode: WebSocketOpcode = .text) -> SharedBytes {
        var frame: [UInt8] = []
        FrameEncoder.encodeServerFrame(opcode: opcode, payload: payload, into: &frame)
        return SharedBytes(frame)
    }

    static func inflate(_ frame: SharedBytes) throws -> [UInt8] {
        let layout = try #require(frame.withUnsafeBytes { raw -> ServerFrameLayout? in
            // The compressed frame has RSV1 set; read its header as the plain layout would with RSV1 cleared.
            var bytes = Array(raw)
            bytes[0] &= ~0x40
            return bytes.withUnsafeBytes { ServerFrameLayout(parsing: $0) }
        })
        let client = try PerMessageDeflate(parameters: PerMessageDeflateParameters(serverNoContextTakeover: true), role: .client)
        var text: [UInt8] = []
        let payload = Array(frame.bytes[layout.payloadOffset...])
        #expect(payload.withUnsafeBytes { client.decompress($0, appendingTo: &text, limit: 1 << 20) } == nil)
        #expect(client.finishMessage(appendingTo: &text, limit: 1 << 20) == nil)
        return text
    }

    @Test("RFC 7692 §6: one compressed frame (RSV1) per configuration, shared by reference; plain sessions get the original")
    func compressesOncePerConfiguration() throws {
        let json = Array(String(repeating: #"{"type":"event","event":"message","text":"hello there"}"#, count: 4).utf8)
        let plain = Self.serverFrame(json)
        let compressors = LoopCompressors()
        var fanOut = FanOutFrame(plain)
        let options = PerMessageDeflateOptions()
        let first = fanOut.frame(for: .shared(windowBits: 15, options: options), compressors: compressors)
        let second = fanOut.frame(for: .shared(windowBits: 15, options: options), compressors: compressors)
        let narrow = fanOut.frame(for: .shared(windowBits: 10, options: options), compressors: compressors)
        #expect(first === second)  // compressed once, shared
        #expect(first !== plain && narrow !== first)
        #expect(fanOut.frame(for: .none, compressors: compressors) === plain)
        #expect(first.bytes[0] == 0xC1)  // FIN + RSV1 + text
        #expect(first.count < plain.count)
        #expect(try Self.inflate(first) == json)
        #expect(try Self.inflate(narrow) == json)
    }

    @Test("RFC 7692 §6: short payloads, control frames and fragments go out as they are")
    func leavesOthersAlone() {
        let compressors = LoopCompressors()
        let shared = OutgoingCompression.shared(windowBits: 15, options: PerMessageDeflateOptions())
        let short = Self.serverFrame(Array(#"{"type":"response","id":1}"#.utf8))
        var shortFanOut = FanOutFrame(short)
        #expect(shortFanOut.frame(for: shared, compressors: compressors) === short)
        let ping = Self.serverFrame(Array(repeating: 0x61, count: 100), opcode: .ping)
        var pingFanOut = FanOutFrame(ping)
        #expect(pingFanOut.frame(for: shared, compressors: compressors) === ping)
        var fragment: [UInt8] = []
        FrameEncoder.encodeServerFrame(opcode: .text, payload: Array(repeating: 0x61, count: 200), fin: false, into: &fragment)
        let fragmentFrame = SharedBytes(fragment)
        var fragmentFanOut = FanOutFrame(fragmentFrame)
        #expect(fragmentFanOut.frame(for: shared, compressors: compressors) === fragmentFrame)
    }

    @Test("RFC 6455 §5.2: 7-, 16- and 64-bit payload lengths parse; a truncated or padded frame does not")
    func layouts() {
        for size in [0, 125, 126, 65_535, 65_536] {
            let frame = Self.serverFrame(Array(repeating: 0x62, count: size))
            let layout = frame.withUnsafeBytes { ServerFrameLayout(parsing: $0) }
            #expect(layout?.payloadLength == size)
            #expect(layout?.payloadOffset == FrameEncoder.headerSize(payloadLength: size, masked: false))
            var truncated = frame.bytes
            truncated.removeLast()
            if size > 0 { #expect(truncated.withUnsafeBytes { ServerFrameLayout(parsing: $0) } == nil) }
            #expect((frame.bytes + [0]).withUnsafeBytes { ServerFrameLayout(parsing: $0) } == nil)
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
            #expect(ServerFrameLayout.textFrame(payload).bytes == expected, "size \(size)")
        }
    }
}
