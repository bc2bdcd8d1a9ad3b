import HeraldWebSocket
import Testing

/// Standard base64 (RFC 4648 §4) as the handshake keys use it: the one codec's padded form, strict in what it reads.
@Suite("Base64 (RFC 4648 §4): padded, strict")
struct Base64Tests {
    @Test("Every length round-trips, and the RFC 4648 §10 test vectors encode as written there")
    func roundTrips() {
        let vectors = ["": "", "f": "Zg==", "fo": "Zm8=", "foo": "Zm9v", "foob": "Zm9vYg==", "fooba": "Zm9vYmE=", "foobar": "Zm9vYmFy"]
        for (text, encoded) in vectors {
            #expect(Base64.encode(Array(text.utf8)) == encoded)
            #expect(Base64.decode(encoded) == Array(text.utf8))
        }
        for length in 0...40 {
            let bytes = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 250) }
            #expect(Base64.decode(Base64.encode(bytes)) == bytes, "\(length)")
        }
    }

    @Test("Refused: missing padding, padding anywhere but the last two places, the URL-safe alphabet, set bits after the last byte", arguments: [
        "Zg", "Zg=", "Z===", "Zg=a", "=Zg=", "Zm9v=", "-_==", "Zh==", "Zm9=",
    ])
    func refusesWhatIsNotCanonical(_ text: String) {
        #expect(Base64.decode(text) == nil)
    }
}
