import COpenSSL

/// NIST P-256 (secp256r1, OpenSSL's `prime256v1`) points and key construction, shared by the key type, ECDSA
/// verification and ECDH.
enum P256Curve {
    /// OpenSSL's name for the curve, as `EVP_PKEY_get_group_name` reports it and key parameters take it.
    static let groupName = "prime256v1"
    /// An uncompressed point: 0x04 || X || Y (SEC1 §2.3.3), the form Web Push and VAPID keys travel in.
    static let uncompressedPointSize = 65
    /// The size of a private scalar, of a coordinate, of ECDH's shared secret and of each half of an ES256 signature.
    static let scalarSize = 32

    /// Runs `body` with a fresh `EC_GROUP` for P-256, or returns nil when OpenSSL cannot make one.
    static func withGroup<T>(_ body: (OpaquePointer) -> T?) -> T? {
        guard let group = EC_GROUP_new_by_curve_name(NID_X9_62_prime256v1) else { return nil }
        defer { EC_GROUP_free(group) }
        return body(group)
    }

    /// The point in `octets` (any SEC1 encoding OpenSSL accepts) re-encoded uncompressed, or nil when the bytes
    /// are not a point on P-256. OpenSSL's `EC_POINT_oct2point` refuses off-curve points, which is what keeps an
    /// invalid-curve attack on ECDH out.
    static func uncompressedPoint(_ octets: [UInt8]) -> [UInt8]? {
        guard !octets.isEmpty else { return nil }
        let result: [UInt8]? = withGroup { group in
            guard let point = EC_POINT_new(group) else { return nil }
            defer { EC_POINT_free(point) }
            guard EC_POINT_oct2point(group, point, octets, octets.count, nil) == 1,
                  EC_POINT_is_at_infinity(group, point) == 0 else { return nil }
            return encode(point, group: group)
        }
        if result == nil { ERR_clear_error() }
        return result
    }

    /// `point` as 65 uncompressed bytes.
    static func encode(_ point: OpaquePointer, group: OpaquePointer) -> [UInt8]? {
        var output = [UInt8](repeating: 0, count: uncompressedPointSize)
        let written = EC_POINT_point2oct(group, point, POINT_CONVERSION_UNCOMPRESSED, &output, output.count, nil)
        return written == uncompressedPointSize ? output : nil
    }

    /// Whether `bytes` is exactly a 65-byte uncompressed point on P-256 (the only form Web Push and VAPID allow).
    static func isUncompressedPoint(_ bytes: [UInt8]) -> Bool {
        bytes.count == uncompressedPointSize && bytes[0] == 0x04 && uncompressedPoint(bytes) == bytes
    }

    /// An `EVP_PKEY` holding the public key `bytes` (65 uncompressed bytes, checked to be on the curve).
    static func publicKey(_ bytes: [UInt8]) throws(CryptoError) -> EVPKeyBox {
        guard isUncompressedPoint(bytes) else {
            throw CryptoError(.invalidKey, "a P-256 public key must be a 65-byte uncompressed point on the curve (got \(bytes.count) bytes)")
        }
        return try makeKey(privateScalar: nil, publicPoint: bytes)
    }

    /// Builds an `EVP_PKEY` from raw parameters: the curve, the public point and, for a key pair, the private scalar
    /// (a `BIGNUM *`).
    static func makeKey(privateScalar: OpaquePointer?, publicPoint: [UInt8]) throws(CryptoError) -> EVPKeyBox {
        guard let builder = OSSL_PARAM_BLD_new() else { throw CryptoError.openSSL(.internalFailure, "OSSL_PARAM_BLD_new failed") }
        defer { OSSL_PARAM_BLD_free(builder) }
        // The builder stores pointers until OSSL_PARAM_BLD_to_param copies the values (and the built parameters keep
        // pointing at the names): names and the curve come from static C strings, and the point's buffer stays pinned
        // until the copy is made.
        let parameters: UnsafeMutablePointer<OSSL_PARAM>? = publicPoint.withUnsafeBufferPointer { point in
            var pushed = OSSL_PARAM_BLD_push_utf8_string(builder, copenssl_param_group_name(), copenssl_p256_group_name(), 0) == 1
                && OSSL_PARAM_BLD_push_octet_string(builder, copenssl_param_pub_key(), point.baseAddress, point.count) == 1
            if let privateScalar { pushed = pushed && OSSL_PARAM_BLD_push_BN(builder, copenssl_param_priv_key(), privateScalar) == 1 }
            return pushed ? OSSL_PARAM_BLD_to_param(builder) : nil
        }
        guard let parameters else { throw CryptoError.openSSL(.internalFailure, "building P-256 key parameters failed") }
        defer { OSSL_PARAM_free(parameters) }
        guard let context = EVP_PKEY_CTX_new_from_name(nil, "EC", nil) else {
            throw CryptoError.openSSL(.internalFailure, "EVP_PKEY_CTX_new_from_name(EC) failed")
        }
        defer { EVP_PKEY_CTX_free(context) }
        let selection = privateScalar == nil ? copenssl_evp_pkey_public_key_selection() : copenssl_evp_pkey_keypair_selection()
        var key: OpaquePointer?
        guard EVP_PKEY_fromdata_init(context) == 1, EVP_PKEY_fromdata(context, &key, selection, parameters) == 1, let key else {
            throw CryptoError.openSSL(.invalidKey, "OpenSSL refused the P-256 key parameters")
        }
        return EVPKeyBox(key)
    }
}
