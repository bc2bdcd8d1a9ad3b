import HeraldCrypto
import Testing

/// ES256 (RFC 7518 §3.4) and RS256 (RFC 7518 §3.3) signatures and JWTs, checked against PyJWT.
@Suite("Signatures and JWTs: ES256, RS256, checked with PyJWT")
struct SignatureTests {
    /// argv: token, algorithm, key (hex of a 65-byte P-256 point, or an RSA private key PEM whose public half
    /// verifies). Prints the header and claims PyJWT verified, as JSON.
    static let pyjwtVerify = """
        import sys, json, jwt
        from cryptography.hazmat.primitives.asymmetric import ec
        from cryptography.hazmat.primitives import serialization as s
        token, alg, key = sys.argv[1], sys.argv[2], sys.argv[3]
        if alg == "ES256":
            public = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), bytes.fromhex(key))
        else:
            public = s.load_pem_private_key(key.encode(), None).public_key()
        claims = jwt.decode(token, public, algorithms=[alg], options={"verify_aud": False, "verify_exp": False})
        print(json.dumps({"header": jwt.get_unverified_header(token), "claims": claims}, sort_keys=True, ensure_ascii=False))
        """

    @Test("ES256: a signature is 64 raw bytes that verifies, and fails for another message, key or a flipped bit")
    func es256SignVerify() throws {
        let key = try P256PrivateKey.generate()
        let message = Array("header.payload".utf8)
        for _ in 0..<20 {
            let signature = try key.signES256(message)
            #expect(signature.count == 64)
            #expect(P256.verifyES256(signature: signature, message: message, publicKey: key.publicKey))
            #expect(!P256.verifyES256(signature: signature, message: message + [0], publicKey: key.publicKey))
            #expect(!P256.verifyES256(signature: signature, message: message, publicKey: try P256PrivateKey.generate().publicKey))
            var flipped = signature
            flipped[Int.random(in: 0..<64)] ^= 0x10
            #expect(!P256.verifyES256(signature: flipped, message: message, publicKey: key.publicKey))
        }
        #expect(try P256.verifyES256(signature: key.signES256([]), message: [], publicKey: key.publicKey))
        #expect(!P256.verifyES256(signature: [], message: message, publicKey: key.publicKey))
        #expect(!P256.verifyES256(signature: [UInt8](repeating: 0, count: 64), message: message, publicKey: key.publicKey))
        #expect(!P256.verifyES256(signature: try key.signES256(message), message: message, publicKey: []))
    }

    @Test("ES256: Python's cryptography signature (DER, converted to r||s) verifies here; ours verifies there")
    func es256AgainstPython() throws {
        let key = try P256PrivateKey.generate()
        let message = Array("interop".utf8)
        let result = try runPython("""
            import sys
            from cryptography.hazmat.primitives.asymmetric import ec, utils
            from cryptography.hazmat.primitives import hashes
            key = ec.derive_private_key(int(sys.argv[1], 16), ec.SECP256R1())
            r, s = utils.decode_dss_signature(key.sign(b"interop", ec.ECDSA(hashes.SHA256())))
            print(r.to_bytes(32, "big").hex() + s.to_bytes(32, "big").hex())
            ours = bytes.fromhex(sys.argv[2])
            der = utils.encode_dss_signature(int.from_bytes(ours[:32], "big"), int.from_bytes(ours[32:], "big"))
            key.public_key().verify(der, b"interop", ec.ECDSA(hashes.SHA256()))
            """, [Hex.encode(key.rawPrivateKey), Hex.encode(try key.signES256(message))])
        try #require(result.status == 0, "Python refused our signature")
        let theirs = try #require(hexBytes(result.text))
        #expect(P256.verifyES256(signature: theirs, message: message, publicKey: key.publicKey))
    }

    @Test("ES256 JWT (APNs provider token shape): PyJWT verifies it and reads the header and claims")
    func es256JWT() throws {
        let key = try P256PrivateKey.generate()
        let token = try JWTSigner.es256(claims: ["iss": "TEAM123456", "iat": 1_763_800_000], keyID: "KEY1234567", key: key)
        #expect(token.split(separator: ".").count == 3)
        let result = try runPython(Self.pyjwtVerify, [token, "ES256", Hex.encode(key.publicKey)])
        #expect(result.status == 0)
        #expect(result.text == #"{"claims": {"iat": 1763800000, "iss": "TEAM123456"}, "header": {"alg": "ES256", "kid": "KEY1234567"}}"#)
    }

    @Test("RS256 JWT (Google service-account assertion shape) from PKCS#8 and PKCS#1 keys: PyJWT verifies it", arguments: [false, true])
    func rs256JWT(pkcs1: Bool) throws {
        let pem = try makeRSAPEM(pkcs1: pkcs1)
        #expect(pem.hasPrefix(pkcs1 ? "-----BEGIN RSA PRIVATE KEY-----" : "-----BEGIN PRIVATE KEY-----"))
        let key = try RSAPrivateKey(pem: pem)
        #expect(key.bits == 2048)
        #expect(try key.signRS256([1, 2, 3]).count == 256)
        let claims: JWTClaims = [
            "iss": "herald@project.iam.gserviceaccount.com", "scope": "https://www.googleapis.com/auth/firebase.messaging",
            "aud": "https://oauth2.googleapis.com/token", "iat": 1_763_800_000, "exp": 1_763_803_600,
        ]
        let token = try JWTSigner.rs256(claims: claims, keyID: "abc123", key: key)
        let result = try runPython(Self.pyjwtVerify, [token, "RS256", pem])
        #expect(result.status == 0)
        #expect(result.text.contains(#""header": {"alg": "RS256", "kid": "abc123", "typ": "JWT"}"#), "\(result.text)")
        #expect(result.text.contains(#""scope": "https://www.googleapis.com/auth/firebase.messaging""#))
        // The PKCS#8 form we write reads back as the same key: the same deterministic PKCS#1 v1.5 signature.
        #expect(try RSAPrivateKey(pem: key.pemPKCS8()).signRS256([9]) == key.signRS256([9]))
    }

    @Test("RSA keys refused: under 2048 bits, EC keys, garbage")
    func badRSAKeys() throws {
        let small = try makeRSAPEM(bits: 1024)
        #expect(cryptoErrorKind { () throws(CryptoError) in try RSAPrivateKey(pem: small) } == .invalidKey)
        let ecPEM = try P256PrivateKey.generate().pemPKCS8()
        #expect(cryptoErrorKind { () throws(CryptoError) in try RSAPrivateKey(pem: ecPEM) } == .invalidKey)
        #expect(cryptoErrorKind { () throws(CryptoError) in try RSAPrivateKey(pem: "-----BEGIN RSA PRIVATE KEY-----\nZm9v\n-----END RSA PRIVATE KEY-----\n") } == .invalidKey)
        #expect(cryptoErrorKind { () throws(CryptoError) in try RSAPrivateKey(pem: "") } == .invalidKey)
    }

    @Test("JWT JSON escaping: quotes, backslashes, control characters and non-ASCII survive; PyJWT reads them back")
    func jwtEscaping() throws {
        let key = try P256PrivateKey.generate()
        let tricky = "a\"b\\c\nd\te\u{01}f/é✓😀"
        let token = try JWTSigner.es256(claims: ["sub": .string(tricky), "n": -5], key: key)
        let result = try runPython(Self.pyjwtVerify + "\nassert claims['sub'] == sys.argv[4], claims\n", [token, "ES256", Hex.encode(key.publicKey), tricky])
        #expect(result.status == 0, "\(result.text)")
        let payload = String(decoding: try b64(String(token.split(separator: ".")[1])), as: UTF8.self)
        #expect(payload == #"{"sub":"a\"b\\c\nd\te\u0001f/é✓😀","n":-5}"#)
    }

    @Test("A claim named twice is refused rather than signed")
    func duplicateClaims() throws {
        let key = try P256PrivateKey.generate()
        #expect(cryptoErrorKind { () throws(CryptoError) in try JWTSigner.es256(claims: JWTClaims([("exp", 1), ("exp", 2)]), key: key) } == .invalidArgument)
        #expect(cryptoErrorKind { () throws(CryptoError) in try JWTSigner.es256(claims: ["alg": "none"], key: key) } == nil, "a claim may share a header name")
    }
}

/// Bytes from hex text, nil on odd length or a non-hex digit.
func hexBytes(_ text: String) -> [UInt8]? {
    let digits = Array(text.utf8)
    guard digits.count % 2 == 0 else { return nil }
    var bytes: [UInt8] = []
    for index in stride(from: 0, to: digits.count, by: 2) {
        guard let byte = UInt8(String(decoding: digits[index..<index + 2], as: UTF8.self), radix: 16) else { return nil }
        bytes.append(byte)
    }
    return bytes
}
