/// The content-encryption key and nonce of a Web Push message, derived exactly as RFC 8291 §3.3-3.4 and
/// RFC 8188 §2.2-2.3 say. Both sides run this; only who holds which private key differs.
struct WebPushKeyDerivation {
    /// CEK: the AES-128-GCM key.
    let contentEncryptionKey: [UInt8]
    /// NONCE: the first record's nonce; record i uses it XOR i (RFC 8188 §2.3).
    let nonce: [UInt8]

    /// - Parameters:
    ///   - ecdhSecret: ECDH of the sender's key and the receiver's, 32 bytes (RFC 8291 §3.1).
    ///   - authSecret: the subscription's 16-byte `auth` secret (RFC 8291 §3.2).
    ///   - receiverPublicKey: `ua_public`, the subscription's 65-byte `p256dh`.
    ///   - senderPublicKey: `as_public`, the sender's 65-byte ephemeral key (the header's `keyid`).
    ///   - salt: the header's 16-byte salt.
    init(ecdhSecret: [UInt8], authSecret: [UInt8], receiverPublicKey: [UInt8], senderPublicKey: [UInt8], salt: [UInt8]) {
        // RFC 8291 §3.3: HKDF-Extract(salt=auth_secret, IKM=ecdh_secret), then HKDF-Expand(PRK_key, key_info, 32);
        // 32 bytes is one HMAC block, so the expand is HMAC(PRK_key, key_info || 0x01).
        let prkKey = HMACSHA256.mac(key: authSecret, message: ecdhSecret)
        let keyInfo = Array("WebPush: info".utf8) + [0x00] + receiverPublicKey + senderPublicKey
        let inputKeyingMaterial = HMACSHA256.mac(key: prkKey, message: keyInfo + [0x01])
        // RFC 8188 §2.2-2.3: HKDF-Extract(salt, IKM), then one block each for the key (16 bytes) and nonce (12).
        let prk = HMACSHA256.mac(key: salt, message: inputKeyingMaterial)
        contentEncryptionKey = Array(HMACSHA256.mac(key: prk, message: Array("Content-Encoding: aes128gcm".utf8) + [0x00, 0x01]).prefix(AES128GCM.keySize))
        nonce = Array(HMACSHA256.mac(key: prk, message: Array("Content-Encoding: nonce".utf8) + [0x00, 0x01]).prefix(AES128GCM.nonceSize))
    }

    /// The nonce of record `sequence` (0-based): NONCE XOR the sequence number as a 96-bit big-endian integer.
    func nonce(forRecord sequence: UInt64) -> [UInt8] {
        var result = nonce
        for byteIndex in 0..<8 {
            result[AES128GCM.nonceSize - 1 - byteIndex] ^= UInt8(truncatingIfNeeded: sequence >> (8 * UInt64(byteIndex)))
        }
        return result
    }
}
