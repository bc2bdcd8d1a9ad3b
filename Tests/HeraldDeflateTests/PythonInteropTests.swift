import HeraldDeflate
import HeraldWebSocket
import Testing

/// Interop with Python's zlib (the same library family browsers' and `websockets`' deflate builds on):
/// raw deflate (wbits=-15), sync flush, tail stripped as RFC 7692 §7.2.1 describes.
@Suite("permessage-deflate interop with Python zlib")
struct PythonInteropTests {
    static let compressScript = """
        import sys, zlib
        data = sys.stdin.buffer.read()
        c = zlib.compressobj(9, zlib.DEFLATED, -15)
        out = c.compress(data) + c.flush(zlib.Z_SYNC_FLUSH)
        assert out.endswith(b'\\x00\\x00\\xff\\xff')
        sys.stdout.buffer.write(out[:-4])
        """

    static let decompressScript = """
        import sys, zlib
        d = zlib.decompressobj(-15)
        sys.stdout.buffer.write(d.decompress(sys.stdin.buffer.read() + b'\\x00\\x00\\xff\\xff'))
        """

    @Test("Python-compressed messages inflate here", arguments: [1, 126, 70_000])
    func pythonToHerald(_ size: Int) throws {
        let text = compressibleText(size) + "é✓"
        let compressed = try runPython(Self.compressScript, input: Array(text.utf8))
        #expect(!compressed.isEmpty)
        var pair = try DeflatePair()
        #expect(pair.server.feed(clientFrame(.text, compressed, rsv1: true)).events == [.text(text)])
    }

    @Test("Our compressed messages inflate in Python", arguments: [100, 65536])
    func heraldToPython(_ size: Int) throws {
        var pair = try DeflatePair()
        let text = compressibleText(size)
        var frame: [UInt8] = []
        pair.server.sendText(text, into: &frame)
        #expect(frame[0] & 0x40 != 0)
        let inflated = try runPython(Self.decompressScript, input: serverFramePayload(frame))
        #expect(inflated == Array(text.utf8))
    }

    @Test("Fixed fixture: RFC 7692 §7.2.3.1 'Hello' compressed")
    func rfcFixture() throws {
        var pair = try DeflatePair()
        // RFC 7692 §7.2.3.1: "Hello" as a compressed, unfragmented text message payload.
        let payload: [UInt8] = [0xF2, 0x48, 0xCD, 0xC9, 0xC9, 0x07, 0x00]
        #expect(pair.server.feed(clientFrame(.text, payload, rsv1: true)).events == [.text("Hello")])
        // §7.2.3.2: the same bytes sent again using context takeover (a back-reference): f2 00 11 00 00.
        #expect(pair.server.feed(clientFrame(.text, [0xF2, 0x00, 0x11, 0x00, 0x00], rsv1: true)).events == [.text("Hello")])
    }
}
