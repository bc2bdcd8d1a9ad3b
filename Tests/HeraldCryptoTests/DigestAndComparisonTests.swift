import HeraldCrypto
import Testing

/// SHA-256 and the constant-time comparison: the server's API keys are stored as the one and matched with the other.
@Suite("SHA-256 and constant-time comparison")
struct DigestAndComparisonTests {
    @Test("FIPS 180-4 example vectors: \"abc\", the empty string, and the two-block 448-bit message")
    func sha256Vectors() {
        #expect(Hex.encode(SHA256Digest.of(Array("abc".utf8))) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(Hex.encode(SHA256Digest.of([])) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(Hex.encode(SHA256Digest.of(Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8)))
                == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
    }

    @Test("Equal only when every byte and the length match; empty strings never match (an empty MAC is never valid)")
    func constantTimeEqual() {
        let mac = HMACSHA256.mac(key: Array("k".utf8), message: Array("m".utf8))
        #expect(ConstantTime.equal(mac, mac))
        var lastByteFlipped = mac
        lastByteFlipped[31] ^= 1
        #expect(!ConstantTime.equal(mac, lastByteFlipped))
        #expect(!ConstantTime.equal(mac, Array(mac.prefix(31))))
        #expect(!ConstantTime.equal([], []))
    }
}
