import HeraldStore

/// Where the JWT signing secret comes from: `--secret` when given, otherwise 32 random bytes
/// (`RAND_bytes`) created once and kept in the database's meta table, so tokens outlive restarts and
/// `herald-server token` agrees with a running server on the same file.
public enum SigningSecret {
    /// Bytes of a generated secret.
    public static let generatedByteCount = 32

    /// The secret to sign and verify with.
    ///
    /// - Parameters:
    ///   - option: the `--secret` value, used as its UTF-8 bytes; nil or empty means "use the stored one".
    ///   - store: the database that keeps (or receives) the generated secret.
    public static func resolve(option: String?, store: any SyncStore) throws -> [UInt8] {
        if let option, !option.isEmpty { return Array(option.utf8) }
        return try store.secret(orCreate: { Crypto.randomBytes(generatedByteCount) })
    }
}
