/// P-256 operations that need only a public key: checking a subscription's `p256dh` and verifying ES256.
public enum P256 {
    /// Whether `bytes` is a 65-byte uncompressed point (0x04 || X || Y) on P-256, the only form a Web Push
    /// subscription key or a VAPID key may take. Check keys when they arrive, not when a push is due.
    public static func isValidPublicKey(_ bytes: [UInt8]) -> Bool {
        P256Curve.isUncompressedPoint(bytes)
    }

    /// Whether `signature`, a 64-byte JWS r || s (RFC 7518 §3.4), is a valid ES256 signature of `message` by
    /// `publicKey` (65 uncompressed bytes). False, never a trap, for any malformed input.
    public static func verifyES256(signature: [UInt8], message: [UInt8], publicKey: [UInt8]) -> Bool {
        guard let der = ECDSASignatureEncoding.der(fromRaw: signature), let key = try? P256Curve.publicKey(publicKey) else { return false }
        return DigestSignature.verify(der, message: message, key: key)
    }
}
