import HeraldCrypto
import Testing

/// Bodies from the network and arguments from subscriptions are untrusted: every bad one is a typed error, no trap
/// (RFC 8188 §2 and RFC 8291 §4 define what is well formed).
@Suite("Web Push: malformed input is refused with typed errors")
struct WebPushMalformedTests {
    let receiver: P256PrivateKey
    let auth: [UInt8]
    let body: [UInt8]

    init() throws {
        receiver = try P256PrivateKey.generate()
        auth = SecureRandom.bytes(16)
        body = try WebPushEncryption.encrypt(Array("hello push".utf8), receiverPublicKey: receiver.publicKey, authSecret: auth)
    }

    @Test("Every truncation of a body is refused, never trapping")
    func truncations() {
        for length in 0..<body.count {
            let kind = cryptoErrorKind { () throws(CryptoError) in try WebPushEncryption.decrypt(Array(body.prefix(length)), receiverKey: receiver, authSecret: auth) }
            #expect(kind == .malformedBody || kind == .authenticationFailed, "length \(length): \(String(describing: kind))")
        }
        #expect(cryptoErrorKind { () throws(CryptoError) in try WebPushEncryption.decrypt(body, receiverKey: receiver, authSecret: auth) } == nil)
    }

    @Test("A wrong auth secret or a different receiver key fails authentication (the GCM tag)")
    func wrongSecrets() throws {
        var otherAuth = auth
        otherAuth[0] ^= 1
        #expect(cryptoErrorKind { () throws(CryptoError) in try WebPushEncryption.decrypt(body, receiverKey: receiver, authSecret: otherAuth) } == .authenticationFailed)
        let stranger = try P256PrivateKey.generate()
        #expect(cryptoErrorKind { () throws(CryptoError) in try WebPushEncryption.decrypt(body, receiverKey: stranger, authSecret: auth) } == .authenticationFailed)
    }

    @Test("Every single-bit flip outside rs is refused")
    func bitFlips() {
        // rs (bytes 16..<20) is not authenticated (RFC 8188 §2.1 feeds only the salt and the keying material into the
        // derivation): a flip that leaves it above this one record's length changes nothing, so it is skipped here.
        for index in body.indices where !(16..<20).contains(index) {
            var altered = body
            altered[index] ^= 0x01
            let kind = cryptoErrorKind { () throws(CryptoError) in try WebPushEncryption.decrypt(altered, receiverKey: receiver, authSecret: auth) }
            #expect(kind != nil, "flip at \(index) was accepted")
        }
    }

    @Test("Header fields out of range: rs below 18, a keyid that is not a 65-byte point, no record")
    func badHeaders() {
        var smallRecordSize = body
        smallRecordSize[16..<20] = [0, 0, 0, 17]
        var shortKeyID = Array(body[0..<20]) + [64] + Array(body[21...])
        shortKeyID.remove(at: 21)
        var offCurve = body
        offCurve[21 + 64] ^= 0xFF
        for (name, bad) in [("rs 17", smallRecordSize), ("idlen 64", shortKeyID), ("off-curve keyid", offCurve), ("no record", Array(body.prefix(86)))] {
            #expect(cryptoErrorKind { () throws(CryptoError) in try WebPushEncryption.decrypt(bad, receiverKey: receiver, authSecret: auth) } == .malformedBody, "\(name)")
        }
        #expect(cryptoErrorKind { () throws(CryptoError) in try WebPushEncryption.decrypt([], receiverKey: receiver, authSecret: auth) } == .malformedBody)
    }

    @Test("Wrong-size auth secret, salt, receiver key; record size below 18; negative padding")
    func badEncryptArguments() throws {
        let message = Array("x".utf8)
        let key = receiver.publicKey
        #expect(cryptoErrorKind { () throws(CryptoError) in try WebPushEncryption.encrypt(message, receiverPublicKey: key, authSecret: [1, 2, 3]) } == .invalidArgument)
        #expect(cryptoErrorKind { () throws(CryptoError) in try WebPushEncryption.encrypt(message, receiverPublicKey: key, authSecret: auth, salt: [0]) } == .invalidArgument)
        #expect(cryptoErrorKind { () throws(CryptoError) in try WebPushEncryption.encrypt(message, receiverPublicKey: key, authSecret: auth, recordSize: 17) } == .invalidArgument)
        #expect(cryptoErrorKind { () throws(CryptoError) in try WebPushEncryption.encrypt(message, receiverPublicKey: key, authSecret: auth, padding: -1) } == .invalidArgument)
        #expect(cryptoErrorKind { () throws(CryptoError) in try WebPushEncryption.encrypt(message, receiverPublicKey: Array(key.prefix(64)), authSecret: auth) } == .invalidKey)
        var offCurve = key
        offCurve[64] ^= 0x01
        #expect(cryptoErrorKind { () throws(CryptoError) in try WebPushEncryption.encrypt(message, receiverPublicKey: offCurve, authSecret: auth) } == .invalidKey)
        #expect(cryptoErrorKind { () throws(CryptoError) in try WebPushEncryption.decrypt(body, receiverKey: receiver, authSecret: []) } == .invalidArgument)
    }

    @Test("Plaintext that does not fit one record (rs - 17 bytes) is refused; the largest that fits round-trips")
    func recordCapacity() throws {
        #expect(WebPushEncryption.maximumPlaintextSize() == 4079)
        let tooBig = [UInt8](repeating: 0x61, count: 4080)
        #expect(cryptoErrorKind { () throws(CryptoError) in try WebPushEncryption.encrypt(tooBig, receiverPublicKey: receiver.publicKey, authSecret: auth) } == .plaintextTooLarge)
        #expect(cryptoErrorKind { () throws(CryptoError) in
            try WebPushEncryption.encrypt(Array(tooBig.prefix(4000)), receiverPublicKey: receiver.publicKey, authSecret: auth, padding: 80)
        } == .plaintextTooLarge)
        let fits = Array(tooBig.prefix(4079))
        let body = try WebPushEncryption.encrypt(fits, receiverPublicKey: receiver.publicKey, authSecret: auth)
        #expect(body.count == 86 + 4096)
        #expect(try WebPushEncryption.decrypt(body, receiverKey: receiver, authSecret: auth) == fits)
        let small = try WebPushEncryption.encrypt(Array("ab".utf8), receiverPublicKey: receiver.publicKey, authSecret: auth, recordSize: 19)
        #expect(try WebPushEncryption.decrypt(small, receiverKey: receiver, authSecret: auth) == Array("ab".utf8))
    }

    @Test("Fresh sender key and salt per message: two encryptions of one plaintext differ")
    func freshPerMessage() throws {
        let again = try WebPushEncryption.encrypt(Array("hello push".utf8), receiverPublicKey: receiver.publicKey, authSecret: auth)
        #expect(Array(again.prefix(16)) != Array(body.prefix(16)))
        #expect(Array(again[21..<86]) != Array(body[21..<86]))
    }
}
