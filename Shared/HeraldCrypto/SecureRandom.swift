import COpenSSL

/// Cryptographically secure random bytes: Web Push salts and ephemeral keys, secrets, nonces.
public enum SecureRandom {
    /// `count` bytes from OpenSSL's CSPRNG (`RAND_bytes`), falling back to the system generator (getrandom)
    /// should OpenSSL's ever fail, so callers never receive predictable bytes and never have to handle an error.
    public static func bytes(_ count: Int) -> [UInt8] {
        guard count > 0 else { return [] }
        var bytes = [UInt8](repeating: 0, count: count)
        let ok = bytes.withUnsafeMutableBytes { buffer in
            RAND_bytes(buffer.baseAddress?.assumingMemoryBound(to: UInt8.self), Int32(clamping: buffer.count)) == 1
        }
        if !ok || count > Int(Int32.max) {
            _ = CryptoError.drainOpenSSLErrors()
            var generator = SystemRandomNumberGenerator()
            for index in bytes.indices { bytes[index] = UInt8.random(in: .min ... .max, using: &generator) }
        }
        return bytes
    }
}
