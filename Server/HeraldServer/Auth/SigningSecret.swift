import HeraldStoreProtocol
import HeraldCrypto

/// Where the JWT signing secret comes from: `--secret` when given, otherwise 32 random bytes
/// (`RAND_bytes`) created once and kept in the database's meta table, so tokens outlive restarts and
/// `herald-server token` agrees with a running server on the same file.
public enum SigningSecret {
    /// Bytes of a generated secret.
    public static let generatedByteCount = 32

    /// The secret to sign and verify with.
    ///
    /// - Parameters:
    ///   - option: the configured secret (`--secret-file` or `--secret`), one key per line (``SigningKeys``); nil or
    ///     empty means "use the stored one".
    ///   - store: the database that keeps (or receives) the generated secret.
    public static func resolve(option: String?, store: any SyncStore) throws -> SigningKeys {
        if let option, let keys = SigningKeys(lines: option) { return keys }
        return SigningKeys(single: try store.secret(orCreate: { SecureRandom.bytes(generatedByteCount) }))
    }
}
