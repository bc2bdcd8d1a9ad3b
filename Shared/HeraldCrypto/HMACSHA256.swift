import COpenSSL

/// HMAC-SHA-256 (RFC 2104, FIPS 180-4): signs webhooks and is the building block of Web Push key derivation
/// (RFC 8291 §3.3 uses it as HKDF's extract and expand steps).
public enum HMACSHA256 {
    /// The 32-byte HMAC-SHA-256 of `message` under `key` (any key length; HMAC hashes long keys itself).
    public static func mac(key: [UInt8], message: [UInt8]) -> [UInt8] {
        // One-byte stand-ins for empty inputs: HMAC() takes a nil key to mean "make one up", so never pass nil.
        let keyInput = key.isEmpty ? [0] : key
        let messageInput = message.isEmpty ? [0] : message
        var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        let produced = keyInput.withUnsafeBufferPointer { keyBytes in
            messageInput.withUnsafeBufferPointer { messageBytes in
                digest.withUnsafeMutableBufferPointer { out in
                    HMAC(EVP_sha256(), keyBytes.baseAddress, Int32(clamping: key.count), messageBytes.baseAddress, message.count,
                         out.baseAddress, &length) != nil
                }
            }
        }
        // HMAC-SHA-256 fails only if OpenSSL cannot allocate (or the key exceeds 2 GiB). Then the answer is a MAC
        // no one can predict or match, so the failure can only make a signature check or a decryption fail.
        guard produced, length == 32, key.count <= Int(Int32.max) else {
            _ = CryptoError.drainOpenSSLErrors()
            return SecureRandom.bytes(32)
        }
        return Array(digest.prefix(32))
    }

    /// The MAC as 64 lowercase hex digits, the form webhook signature headers carry.
    public static func hexMAC(key: [UInt8], message: [UInt8]) -> String {
        Hex.encode(mac(key: key, message: message))
    }
}
