/// ES256 signatures (ECDSA P-256 with SHA-256): APNs provider tokens and VAPID JWTs.
extension P256PrivateKey {
    /// Signs `message` (SHA-256 is applied here) and returns the 64-byte r || s that JWS requires
    /// (RFC 7518 §3.4), not OpenSSL's DER. ECDSA is randomised, so two signatures of one message differ.
    public func signES256(_ message: [UInt8]) throws(CryptoError) -> [UInt8] {
        let der = try DigestSignature.sign(message, key: key)
        guard let raw = ECDSASignatureEncoding.raw(fromDER: der) else {
            throw CryptoError(.internalFailure, "OpenSSL produced an ECDSA signature that is not P-256 sized DER")
        }
        return raw
    }
}
