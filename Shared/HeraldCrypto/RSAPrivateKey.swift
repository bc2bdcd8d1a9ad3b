import COpenSSL

/// An RSA private key for RS256 JWTs: the key of a Google service account, which signs the assertion exchanged
/// for an FCM access token (RFC 7523).
///
/// `@unchecked Sendable` for the same reason as ``P256PrivateKey``: the `EVP_PKEY` never changes after creation.
public struct RSAPrivateKey: @unchecked Sendable {
    /// RFC 7518 §3.3: keys of 2048 bits or larger MUST be used with RS256.
    public static let minimumBits = 2048

    let key: EVPKeyBox

    /// The modulus size in bits.
    public var bits: Int { Int(EVP_PKEY_get_bits(key.pointer)) }

    /// Parses a PEM RSA private key: PKCS#8 (`BEGIN PRIVATE KEY`, as in a service-account JSON's `private_key`)
    /// or PKCS#1 (`BEGIN RSA PRIVATE KEY`). Throws `.invalidKey` for anything else, for encrypted keys and for
    /// keys under 2048 bits.
    public init(pem: String) throws(CryptoError) {
        let key = try PEMCoding.readPrivateKey(pem)
        guard EVP_PKEY_is_a(key.pointer, "RSA") == 1 else { throw CryptoError(.invalidKey, "the PEM key is not an RSA key") }
        let bits = Int(EVP_PKEY_get_bits(key.pointer))
        guard bits >= Self.minimumBits else {
            throw CryptoError(.invalidKey, "RS256 needs an RSA key of at least \(Self.minimumBits) bits (got \(bits))")
        }
        self.key = key
    }

    /// Signs `message` with RSASSA-PKCS1-v1_5 and SHA-256 (JWS `RS256`, RFC 7518 §3.3); the signature is as long
    /// as the modulus.
    public func signRS256(_ message: [UInt8]) throws(CryptoError) -> [UInt8] {
        try DigestSignature.sign(message, key: key)
    }

    /// The key as unencrypted PKCS#8 PEM (`BEGIN PRIVATE KEY`).
    public func pemPKCS8() throws(CryptoError) -> String {
        try PEMCoding.writePrivateKey(key)
    }
}
