import COpenSSL

/// Elliptic-curve Diffie-Hellman on P-256: the `ecdh_secret` of Web Push encryption (RFC 8291 §3.1).
extension P256PrivateKey {
    /// The 32-byte shared secret (the X coordinate of d·Q) with `peerPublicKey`, a 65-byte uncompressed point.
    /// The point is checked to be on the curve first, so a malicious key cannot leak bits of ours.
    public func sharedSecret(with peerPublicKey: [UInt8]) throws(CryptoError) -> [UInt8] {
        let peer = try P256Curve.publicKey(peerPublicKey)
        guard let context = EVP_PKEY_CTX_new_from_pkey(nil, key.pointer, nil) else {
            throw CryptoError.openSSL(.internalFailure, "EVP_PKEY_CTX_new_from_pkey failed")
        }
        defer { EVP_PKEY_CTX_free(context) }
        var secret = [UInt8](repeating: 0, count: P256Curve.scalarSize)
        var length = secret.count
        guard EVP_PKEY_derive_init(context) == 1, EVP_PKEY_derive_set_peer_ex(context, peer.pointer, 1) == 1 else {
            throw CryptoError.openSSL(.invalidKey, "OpenSSL refused the ECDH peer key")
        }
        guard EVP_PKEY_derive(context, &secret, &length) == 1, length == P256Curve.scalarSize else {
            throw CryptoError.openSSL(.internalFailure, "EVP_PKEY_derive failed")
        }
        return secret
    }
}
