import COpenSSL

/// HMAC-SHA256 (RFC 2104) and the randomness the server's secrets come from, via OpenSSL.
enum Crypto {
    /// HMAC-SHA256 of `message` under `key`: 32 bytes.
    static func hmacSHA256(key: [UInt8], message: [UInt8]) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        key.withUnsafeBytes { keyBytes in
            message.withUnsafeBytes { messageBytes in
                digest.withUnsafeMutableBytes { out in
                    _ = HMAC(
                        EVP_sha256(), keyBytes.baseAddress, Int32(keyBytes.count),
                        messageBytes.baseAddress?.assumingMemoryBound(to: UInt8.self), messageBytes.count,
                        out.baseAddress?.assumingMemoryBound(to: UInt8.self), &length)
                }
            }
        }
        return Array(digest.prefix(Int(length)))
    }

    /// Compares two byte strings in time that depends only on their lengths, never on where they differ,
    /// so a forger learns nothing from how fast a wrong signature is refused.
    static func constantTimeEqual(_ lhs: [UInt8], _ rhs: [UInt8]) -> Bool {
        guard lhs.count == rhs.count else { return false }
        var difference: UInt8 = 0
        for index in lhs.indices { difference |= lhs[index] ^ rhs[index] }
        return difference == 0
    }

    /// `count` bytes from OpenSSL's CSPRNG (`RAND_bytes`), falling back to the system generator (getrandom).
    static func randomBytes(_ count: Int) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        let ok = bytes.withUnsafeMutableBytes { buffer in
            RAND_bytes(buffer.baseAddress?.assumingMemoryBound(to: UInt8.self), Int32(buffer.count)) == 1
        }
        if !ok {
            var generator = SystemRandomNumberGenerator()
            for index in bytes.indices { bytes[index] = UInt8.random(in: .min ... .max, using: &generator) }
        }
        return bytes
    }
}
