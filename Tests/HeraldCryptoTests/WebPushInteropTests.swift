import HeraldCrypto
import Testing

/// Cross-checks with Python's `http_ece` (Mozilla's RFC 8188/8291 implementation): what we encrypt it decrypts,
/// and what it encrypts, in one record or several (RFC 8188 §2), we decrypt.
@Suite("Web Push: interop with http_ece")
struct WebPushInteropTests {
    /// argv: receiver private scalar hex, auth secret hex; stdin: body. Prints the plaintext.
    static let pythonDecrypt = """
        import sys, http_ece
        from cryptography.hazmat.primitives.asymmetric import ec
        key = ec.derive_private_key(int(sys.argv[1], 16), ec.SECP256R1())
        sys.stdout.buffer.write(http_ece.decrypt(sys.stdin.buffer.read(), private_key=key, auth_secret=bytes.fromhex(sys.argv[2]), version="aes128gcm"))
        """

    /// argv: receiver public key hex, auth secret hex, record size; stdin: plaintext. Prints the body.
    static let pythonEncrypt = """
        import sys, http_ece
        from cryptography.hazmat.primitives.asymmetric import ec
        sender = ec.generate_private_key(ec.SECP256R1())
        body = http_ece.encrypt(sys.stdin.buffer.read(), private_key=sender, dh=bytes.fromhex(sys.argv[1]),
                                auth_secret=bytes.fromhex(sys.argv[2]), rs=int(sys.argv[3]), version="aes128gcm")
        sys.stdout.buffer.write(body)
        """

    @Test("http_ece decrypts what we encrypt (fresh sender key and salt each time)", arguments: [0, 1, 100, 4096 - 17])
    func oursDecryptInPython(size: Int) throws {
        let receiver = try P256PrivateKey.generate()
        let auth = SecureRandom.bytes(16)
        let plaintext = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        let body = try WebPushEncryption.encrypt(plaintext, receiverPublicKey: receiver.publicKey, authSecret: auth)
        let result = try runPython(Self.pythonDecrypt, [Hex.encode(receiver.rawPrivateKey), Hex.encode(auth)], input: body)
        #expect(result.status == 0)
        #expect(result.output == plaintext)
    }

    @Test("http_ece decrypts a padded body", arguments: [1, 200])
    func paddedDecryptsInPython(padding: Int) throws {
        let receiver = try P256PrivateKey.generate()
        let auth = SecureRandom.bytes(16)
        let body = try WebPushEncryption.encrypt(Array("padded".utf8), receiverPublicKey: receiver.publicKey, authSecret: auth, padding: padding)
        #expect(body.count == WebPushEncryption.headerSize + 6 + 17 + padding)
        let result = try runPython(Self.pythonDecrypt, [Hex.encode(receiver.rawPrivateKey), Hex.encode(auth)], input: body)
        #expect(result.output == Array("padded".utf8))
    }

    @Test("We decrypt what http_ece encrypts, in one record and in many (RFC 8188 §2)", arguments: [4096, 18, 25, 100])
    func pythonsDecryptHere(recordSize: Int) throws {
        let receiver = try P256PrivateKey.generate()
        let auth = SecureRandom.bytes(16)
        let plaintext = Array("When I grow up, I want to be a watermelon. And then a bigger watermelon.".utf8)
        let result = try runPython(Self.pythonEncrypt, [Hex.encode(receiver.publicKey), Hex.encode(auth), String(recordSize)], input: plaintext)
        try #require(result.status == 0)
        if recordSize < 100 { #expect(result.output.count > WebPushEncryption.headerSize + recordSize, "several records") }
        #expect(try WebPushEncryption.decrypt(result.output, receiverKey: receiver, authSecret: auth) == plaintext)
    }
}
