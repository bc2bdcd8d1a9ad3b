import COpenSSL
import Foundation
import HeraldCrypto
import Testing

/// P-256 keys from PEM (Apple's `.p8` is PKCS#8, `openssl ecparam` writes SEC1), raw scalars and generation; ECDH.
@Suite("P-256 keys: PEM, raw scalars, ECDH")
struct P256KeyTests {
    /// argv: "pkcs8" or "sec1". Prints a fresh key's PEM, then a line with the public key in uncompressed hex.
    static let pythonKey = """
        import sys
        from cryptography.hazmat.primitives.asymmetric import ec
        from cryptography.hazmat.primitives import serialization as s
        key = ec.generate_private_key(ec.SECP256R1())
        fmt = s.PrivateFormat.PKCS8 if sys.argv[1] == "pkcs8" else s.PrivateFormat.TraditionalOpenSSL
        sys.stdout.write(key.private_bytes(s.Encoding.PEM, fmt, s.NoEncryption()).decode())
        sys.stdout.write(key.public_key().public_bytes(s.Encoding.X962, s.PublicFormat.UncompressedPoint).hex() + "\\n")
        """

    @Test("PKCS#8 (BEGIN PRIVATE KEY) and SEC1 (BEGIN EC PRIVATE KEY) PEMs load with the right public key", arguments: ["pkcs8", "sec1"])
    func pemFromPython(format: String) throws {
        let result = try runPython(Self.pythonKey, [format])
        try #require(result.status == 0)
        let lines = result.text.split(separator: "\n")
        let pem = lines.dropLast().joined(separator: "\n")
        #expect(pem.hasPrefix(format == "pkcs8" ? "-----BEGIN PRIVATE KEY-----" : "-----BEGIN EC PRIVATE KEY-----"))
        let key = try P256PrivateKey(pem: pem)
        #expect(Hex.encode(key.publicKey) == String(lines.last!))
        // CRLF line ends, as a file edited on Windows has them, read the same.
        let crlf = try P256PrivateKey(pem: pem.split(separator: "\n").joined(separator: "\r\n") + "\r\n")
        #expect(crlf.publicKey == key.publicKey)
    }

    @Test("A generated key survives PKCS#8 PEM and raw-scalar round trips")
    func roundTrips() throws {
        let key = try P256PrivateKey.generate()
        #expect(key.publicKey.count == 65 && key.publicKey[0] == 0x04)
        #expect(key.rawPrivateKey.count == 32)
        let pem = try key.pemPKCS8()
        #expect(pem.hasPrefix("-----BEGIN PRIVATE KEY-----"))
        #expect(try P256PrivateKey(pem: pem).publicKey == key.publicKey)
        #expect(try P256PrivateKey(rawPrivateKey: key.rawPrivateKey).publicKey == key.publicKey)
        #expect(try P256PrivateKey.generate().publicKey != key.publicKey)
    }

    @Test("ECDH: both sides derive the same 32-byte secret; Python's cryptography agrees")
    func sharedSecret() throws {
        let alice = try P256PrivateKey.generate()
        let bob = try P256PrivateKey.generate()
        let secret = try alice.sharedSecret(with: bob.publicKey)
        #expect(secret.count == 32)
        #expect(try bob.sharedSecret(with: alice.publicKey) == secret)
        let result = try runPython("""
            import sys
            from cryptography.hazmat.primitives.asymmetric import ec
            key = ec.derive_private_key(int(sys.argv[1], 16), ec.SECP256R1())
            peer = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), bytes.fromhex(sys.argv[2]))
            print(key.exchange(ec.ECDH(), peer).hex())
            """, [Hex.encode(alice.rawPrivateKey), Hex.encode(bob.publicKey)])
        #expect(result.text == Hex.encode(secret))
    }

    @Test("Public key validity: only 65-byte uncompressed points on the curve")
    func publicKeyValidity() throws {
        let key = try P256PrivateKey.generate().publicKey
        #expect(P256.isValidPublicKey(key))
        var offCurve = key
        offCurve[40] ^= 0x01
        var compressedPrefix = key
        compressedPrefix[0] = 0x02
        for bad in [[], Array(key.prefix(64)), key + [0], offCurve, compressedPrefix, [UInt8](repeating: 0, count: 65), [0x04] + [UInt8](repeating: 0xFF, count: 64)] {
            #expect(!P256.isValidPublicKey(bad))
        }
        let me = try P256PrivateKey.generate()
        #expect(cryptoErrorKind { () throws(CryptoError) in try me.sharedSecret(with: offCurve) } == .invalidKey)
        #expect(cryptoErrorKind { () throws(CryptoError) in try me.sharedSecret(with: []) } == .invalidKey)
    }

    @Test("Bad keys are refused with .invalidKey: garbage, empty, wrong sizes, zero and out-of-range scalars, RSA, public-only, encrypted, other curves")
    func badKeys() throws {
        let order = "FFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551"
        let orderBytes = stride(from: 0, to: order.count, by: 2).map { offset in
            UInt8(order.dropFirst(offset).prefix(2), radix: 16)!
        }
        for raw in [[], [UInt8](repeating: 1, count: 31), [UInt8](repeating: 1, count: 33), [UInt8](repeating: 0, count: 32), orderBytes, [UInt8](repeating: 0xFF, count: 32)] {
            #expect(cryptoErrorKind { () throws(CryptoError) in try P256PrivateKey(rawPrivateKey: raw) } == .invalidKey, "\(raw.count) bytes")
        }
        let secp384 = try runPython("""
            from cryptography.hazmat.primitives.asymmetric import ec
            from cryptography.hazmat.primitives import serialization as s
            key = ec.generate_private_key(ec.SECP384R1())
            print(key.private_bytes(s.Encoding.PEM, s.PrivateFormat.PKCS8, s.NoEncryption()).decode())
            print(key.private_bytes(s.Encoding.PEM, s.PrivateFormat.PKCS8, s.BestAvailableEncryption(b"pw")).decode())
            """).text
        let pems = secp384.components(separatedBy: "\n\n")
        let garbage = ["", "hello", "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n",
                       "-----BEGIN PRIVATE KEY-----\n@@@@\n-----END PRIVATE KEY-----\n", pems[0], pems[1], try makeRSAPEM()]
        for pem in garbage {
            #expect(cryptoErrorKind { () throws(CryptoError) in try P256PrivateKey(pem: pem) } == .invalidKey, "\(pem.prefix(40))")
        }
        let encrypted = try runPython("""
            from cryptography.hazmat.primitives.asymmetric import ec
            from cryptography.hazmat.primitives import serialization as s
            key = ec.generate_private_key(ec.SECP256R1())
            print(key.private_bytes(s.Encoding.PEM, s.PrivateFormat.PKCS8, s.BestAvailableEncryption(b"pw")).decode())
            print(key.public_key().public_bytes(s.Encoding.PEM, s.PublicFormat.SubjectPublicKeyInfo).decode())
            """).text
        for pem in encrypted.components(separatedBy: "\n\n") {
            #expect(cryptoErrorKind { () throws(CryptoError) in try P256PrivateKey(pem: pem) } == .invalidKey, "\(pem.prefix(40))")
        }
    }

    @Test("Errors carry OpenSSL's explanation and leave its error queue empty")
    func errorMessages() {
        do {
            _ = try P256PrivateKey(pem: "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n")
            Issue.record("garbage PEM accepted")
        } catch {
            #expect(error.kind == .invalidKey)
            #expect(error.description.contains("error:"), "\(error)")
        }
        // A stale entry would be misread by TLS on this thread (SSL_get_error looks at the queue).
        #expect(ERR_peek_error() == 0)
        #expect(cryptoErrorKind { () throws(CryptoError) in try P256PrivateKey(pem: "still garbage") } == .invalidKey)
        #expect(!P256.isValidPublicKey([0x04] + [UInt8](repeating: 0xFF, count: 64)))
        #expect(!P256.verifyES256(signature: [UInt8](repeating: 1, count: 64), message: [1], publicKey: (try? P256PrivateKey.generate().publicKey) ?? []))
        #expect(ERR_peek_error() == 0)
    }
}
