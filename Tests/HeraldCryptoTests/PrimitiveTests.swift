import HeraldCrypto
import Testing

/// The small building blocks: HMAC-SHA-256 (RFC 4231 vectors), hex, base64url, random bytes.
@Suite("Primitives: HMAC-SHA-256, hex, base64url, random")
struct PrimitiveTests {
    @Test("RFC 4231 §4.3 test case 2 and §4.7 test case 6 (a key longer than the block)")
    func hmacVectors() {
        #expect(HMACSHA256.hexMAC(key: Array("Jefe".utf8), message: Array("what do ya want for nothing?".utf8))
            == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
        #expect(HMACSHA256.hexMAC(
            key: [UInt8](repeating: 0xAA, count: 131), message: Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8))
            == "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54")
        #expect(HMACSHA256.mac(key: [], message: []).count == 32)
        #expect(HMACSHA256.hexMAC(key: [], message: []) == "b613679a0814d9ec772f95d778c35fc5ff1697c493715653c6c712144292c5ad")
    }

    @Test("Hex is lowercase, two digits per byte")
    func hex() {
        #expect(Hex.encode([0x00, 0x0F, 0xA0, 0xFF]) == "000fa0ff")
        #expect(Hex.encode([UInt8]()) == "")
    }

    @Test("Base64url (RFC 4648 §5): round trips, unpadded, strict")
    func base64URL() {
        for count in 0..<40 {
            let bytes = SecureRandom.bytes(count)
            #expect(Base64URL.decode(Base64URL.encode(bytes)) == bytes)
        }
        #expect(Base64URL.encode([0xFB, 0xFF]) == "-_8")
        #expect(Base64URL.decode("YQ==") == nil)
        #expect(Base64URL.decode("a+b/") == nil)
        #expect(Base64URL.decode("Y") == nil)
    }

    @Test("Random bytes: the requested count, and not repeating")
    func random() {
        #expect(SecureRandom.bytes(0).isEmpty)
        #expect(SecureRandom.bytes(33).count == 33)
        #expect(SecureRandom.bytes(16) != SecureRandom.bytes(16))
    }
}
