import COpenSSL

/// Comparison of secrets (MACs, digests) whose time does not depend on where they differ, so a forger learns nothing
/// from how fast a wrong signature or key is refused.
public enum ConstantTime {
    /// Whether `lhs` and `rhs` are equal, in time that depends only on their lengths (`CRYPTO_memcmp`). Two empty
    /// strings are NOT equal: an empty MAC or digest is never a valid one.
    public static func equal(_ lhs: [UInt8], _ rhs: [UInt8]) -> Bool {
        guard lhs.count == rhs.count, !lhs.isEmpty else { return false }
        return lhs.withUnsafeBytes { a in rhs.withUnsafeBytes { b in CRYPTO_memcmp(a.baseAddress, b.baseAddress, a.count) == 0 } }
    }
}
