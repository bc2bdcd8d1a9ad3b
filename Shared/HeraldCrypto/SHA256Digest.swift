import COpenSSL

/// SHA-256 (FIPS 180-4) of a byte string through OpenSSL: how the server keeps API keys (only their digest is stored).
public enum SHA256Digest {
    /// The 32-byte SHA-256 of `bytes`.
    public static func of(_ bytes: [UInt8]) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        let produced = bytes.withUnsafeBytes { input in
            digest.withUnsafeMutableBufferPointer { output in
                EVP_Digest(input.baseAddress, input.count, output.baseAddress, &length, EVP_sha256(), nil) == 1
            }
        }
        // SHA-256 fails only if OpenSSL cannot allocate. Then the answer is bytes no one can predict or match, so the
        // failure can only make a key lookup miss, never match the wrong key.
        guard produced, length == 32 else {
            _ = CryptoError.drainOpenSSLErrors()
            return SecureRandom.bytes(32)
        }
        return Array(digest.prefix(32))
    }
}
