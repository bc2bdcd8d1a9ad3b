import COpenSSL

/// A NIST P-256 private key: the APNs token key (Apple's `.p8`), the VAPID key, and both sides' Web Push
/// ECDH keys.
///
/// A value type over an OpenSSL key that is freed with its last copy. `@unchecked Sendable` because the
/// underlying `EVP_PKEY` is immutable after creation and OpenSSL 3 allows concurrent use of it.
public struct P256PrivateKey: @unchecked Sendable {
    let key: EVPKeyBox

    /// The public key as a 65-byte uncompressed point, 0x04 || X || Y (X9.62/SEC1): the form of a Web Push
    /// subscription's `p256dh`, of the `keyid` in an aes128gcm header and of VAPID's `k=`.
    public let publicKey: [UInt8]

    /// Wraps a key already checked to be a P-256 key pair, reading its public point.
    init(validated key: EVPKeyBox) throws(CryptoError) {
        var octets = [UInt8](repeating: 0, count: 2 * P256Curve.uncompressedPointSize)
        var length = 0
        guard EVP_PKEY_get_octet_string_param(key.pointer, OSSL_PKEY_PARAM_PUB_KEY, &octets, octets.count, &length) == 1,
              let point = P256Curve.uncompressedPoint(Array(octets.prefix(length))) else {
            throw CryptoError.openSSL(.invalidKey, "the P-256 key has no valid public point")
        }
        self.key = key
        self.publicKey = point
        guard rawPrivateKey.count == P256Curve.scalarSize else { throw CryptoError.openSSL(.invalidKey, "the P-256 key has no private scalar") }
    }

    /// Parses a PEM private key: PKCS#8 (`BEGIN PRIVATE KEY`, as in Apple's `.p8` APNs keys) or SEC1
    /// (`BEGIN EC PRIVATE KEY`, as `openssl ecparam -genkey` writes). Anything else (another curve, an RSA key,
    /// an encrypted key, a public key, garbage) throws `.invalidKey`.
    public init(pem: String) throws(CryptoError) {
        let key = try PEMCoding.readPrivateKey(pem)
        guard EVP_PKEY_is_a(key.pointer, "EC") == 1 else { throw CryptoError(.invalidKey, "the PEM key is not an EC key") }
        var name = [CChar](repeating: 0, count: 64)
        var nameLength = 0
        guard EVP_PKEY_get_group_name(key.pointer, &name, name.count, &nameLength) == 1,
              String(decoding: name.prefix(nameLength).map { UInt8(bitPattern: $0) }, as: UTF8.self) == P256Curve.groupName else {
            throw CryptoError.openSSL(.invalidKey, "the PEM key is not on the P-256 curve")
        }
        try self.init(validated: key)
    }

    /// Builds the key from its 32-byte big-endian private scalar (as test vectors such as RFC 8291's give it),
    /// computing the public point. The scalar must be in 1 ..< n (the group order).
    public init(rawPrivateKey: [UInt8]) throws(CryptoError) {
        guard rawPrivateKey.count == P256Curve.scalarSize else {
            throw CryptoError(.invalidKey, "a P-256 private key is \(P256Curve.scalarSize) bytes (got \(rawPrivateKey.count))")
        }
        guard let scalar = BN_bin2bn(rawPrivateKey, Int32(rawPrivateKey.count), nil) else {
            throw CryptoError.openSSL(.internalFailure, "BN_bin2bn failed")
        }
        defer { BN_clear_free(scalar) }
        let point: [UInt8]? = P256Curve.withGroup { group in
            guard let order = EC_GROUP_get0_order(group), BN_is_zero(scalar) == 0, BN_cmp(scalar, order) < 0,
                  let point = EC_POINT_new(group) else { return nil }
            defer { EC_POINT_free(point) }
            guard EC_POINT_mul(group, point, scalar, nil, nil, nil) == 1 else { return nil }
            return P256Curve.encode(point, group: group)
        }
        guard let point else { throw CryptoError.openSSL(.invalidKey, "the private scalar is not in 1 ..< n for P-256") }
        try self.init(validated: P256Curve.makeKey(privateScalar: scalar, publicPoint: point))
    }

    /// A fresh random key pair: a Web Push sender's one-time key, a new VAPID key.
    public static func generate() throws(CryptoError) -> P256PrivateKey {
        guard let key = copenssl_ec_generate_p256() else { throw CryptoError.openSSL(.internalFailure, "P-256 key generation failed") }
        return try P256PrivateKey(validated: EVPKeyBox(key))
    }

    /// The 32-byte big-endian private scalar, e.g. to store a generated VAPID or client key compactly.
    public var rawPrivateKey: [UInt8] {
        var scalar: OpaquePointer?
        guard EVP_PKEY_get_bn_param(key.pointer, OSSL_PKEY_PARAM_PRIV_KEY, &scalar) == 1, let scalar else {
            ERR_clear_error()
            return []
        }
        defer { BN_clear_free(scalar) }
        var output = [UInt8](repeating: 0, count: P256Curve.scalarSize)
        guard BN_bn2binpad(scalar, &output, Int32(output.count)) == Int32(output.count) else { return [] }
        return output
    }

    /// The key as unencrypted PKCS#8 PEM (`BEGIN PRIVATE KEY`), which `init(pem:)` and other tools read back.
    public func pemPKCS8() throws(CryptoError) -> String {
        try PEMCoding.writePrivateKey(key)
    }
}
