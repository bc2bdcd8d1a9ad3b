import Foundation
import HeraldStoreProtocol
import HeraldCrypto

/// Backend API keys: `hk_<id>_<secret>`, where `id` is 16 hex digits naming the stored row and `secret` is 64 hex
/// digits (32 bytes from `RAND_bytes`). The database keeps only SHA-256 of the whole key; a presented key is
/// looked up by its id and its hash compared with `CRYPTO_memcmp`, so timing reveals nothing of the secret.
///
/// Each key has a scope (`read`: GET endpoints only; `full`: everything, including minting tokens), may expire,
/// and may be revoked; an expired or revoked key is refused exactly like an unknown one.
public enum APIKey {
    static let prefix = "hk_"
    static let idHexDigits = 16
    static let secretHexDigits = 64

    /// A fresh key and its public id.
    static func generate() -> (key: String, id: String) {
        let id = hex(SecureRandom.bytes(idHexDigits / 2))
        return ("\(prefix)\(id)_\(hex(SecureRandom.bytes(secretHexDigits / 2)))", id)
    }

    /// The id of a well-formed key, or nil (then it is refused without a lookup).
    static func id(of key: String) -> String? {
        let bytes = Array(key.utf8)
        guard bytes.count == prefix.utf8.count + idHexDigits + 1 + secretHexDigits, key.hasPrefix(prefix) else { return nil }
        let idStart = prefix.utf8.count, separator = idStart + idHexDigits
        guard bytes[separator] == UInt8(ascii: "_") else { return nil }
        let isHex = { (byte: UInt8) in (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "f")) }
        guard bytes[idStart..<separator].allSatisfy(isHex), bytes[(separator + 1)...].allSatisfy(isHex) else { return nil }
        return String(decoding: bytes[idStart..<separator], as: UTF8.self)
    }

    /// SHA-256 of the key's UTF-8 bytes.
    static func hash(_ key: String) -> [UInt8] { SHA256Digest.of(Array(key.utf8)) }

    /// Whether two hashes are equal, in time that depends only on their length.
    static func hashesMatch(_ lhs: [UInt8], _ rhs: [UInt8]) -> Bool { ConstantTime.equal(lhs, rhs) }

    static func hex(_ bytes: [UInt8]) -> String { Hex.encode(bytes) }

    /// The longest lifetime `apikey create --ttl-seconds` accepts: 100 years, far from overflowing milliseconds.
    public static let maxLifetimeSeconds: Int64 = 100 * 365 * 24 * 3600

    /// Now, in ms since the epoch (the unit keys' times are stored in).
    static var nowMilliseconds: Int64 { Int64(Date().timeIntervalSince1970 * 1000) }

    /// Creates a key in `store` and returns it: what `herald-server apikey create` prints. The key itself is not
    /// stored and cannot be shown again; its id is the 16 hex digits after `hk_`.
    ///
    /// - Parameters:
    ///   - scope: `.read` (GET endpoints only) or `.full` (everything, including writes and minting tokens).
    ///   - expiresInSeconds: lifetime, 1...``maxLifetimeSeconds``; nil: the key never expires.
    /// - Throws: ``APIKeyError/badLifetime(_:)`` before writing anything, `StoreError` from the store.
    public static func create(in store: any APIKeyStore, name: String, scope: APIKeyScope = .full, expiresInSeconds: Int64? = nil) throws -> String {
        let now = nowMilliseconds
        if let expiresInSeconds, !(1...maxLifetimeSeconds).contains(expiresInSeconds) { throw APIKeyError.badLifetime(expiresInSeconds) }
        return try create(in: store, name: name, scope: scope, createdAt: now, expiresAt: expiresInSeconds.map { now + $0 * 1000 })
    }

    /// Creates a key with explicit times (ms since the epoch): tests make keys that have already expired this way.
    static func create(in store: any APIKeyStore, name: String, scope: APIKeyScope, createdAt: Int64, expiresAt: Int64?) throws -> String {
        let (key, id) = generate()
        try store.insertAPIKey(APIKeyRecord(id: id, name: name, hash: hash(key), createdAt: createdAt, scope: scope, expiresAt: expiresAt))
        return key
    }

    /// Every key in `store`, oldest first, revoked and expired ones included. Records carry the hash; show them with
    /// ``listing(_:)``, which never prints it.
    public static func list(in store: any APIKeyStore) throws -> [APIKeyRecord] {
        try store.apiKeys()
    }

    /// Revokes the key with public id `id` in `store`; a server on the same store refuses it from its next request on.
    /// Revoking a revoked key changes nothing and returns it as it is.
    ///
    /// - Throws: ``APIKeyError/notFound(_:)`` for an unknown id.
    @discardableResult
    public static func revoke(in store: any APIKeyStore, id: String) throws -> APIKeyRecord {
        guard let record = try store.revokeAPIKey(id: id, at: nowMilliseconds) else { throw APIKeyError.notFound(id) }
        return record
    }

    /// The presented key's id and scope when `stored` (the record its id names) holds its hash and is usable at `now`
    /// (ms since the epoch); nil for an unknown, wrong, expired or revoked key (all refused alike).
    static func verify(presentedHash: [UInt8], id: String, stored: APIKeyRecord?, now: Int64) -> VerifiedAPIKey? {
        guard let stored, APIKey.hashesMatch(stored.hash, presentedHash), stored.isUsable(now: now) else { return nil }
        return VerifiedAPIKey(id: id, scope: stored.scope)
    }

    /// What `herald-server apikey list` prints: a header and one line per key with its id, name, scope, creation,
    /// expiry and revocation times (UTC, ISO 8601). Never the key or its hash.
    public static func listing(_ records: [APIKeyRecord]) -> String {
        let formatter = ISO8601DateFormatter()
        func time(_ milliseconds: Int64?, none: String) -> String {
            milliseconds.map { formatter.string(from: Date(timeIntervalSince1970: Double($0) / 1000)) } ?? none
        }
        // A name is whatever --name said: control characters would break the table (or the terminal), so they print as spaces.
        func printable(_ name: String) -> String {
            String(String.UnicodeScalarView(name.unicodeScalars.map { $0.properties.generalCategory == .control ? " " : $0 }))
        }
        let rows = [["ID", "NAME", "SCOPE", "CREATED", "EXPIRES", "REVOKED"]] + records.map { record in
            [record.id, printable(record.name), record.scope.rawValue, time(record.createdAt, none: "-"), time(record.expiresAt, none: "never"),
             time(record.revokedAt, none: "-")]
        }
        let widths = (0..<6).map { column in rows.map { $0[column].count }.max() ?? 0 }
        return rows.map { row in
            row.enumerated().map { column, text in
                column == row.count - 1 ? text : text + String(repeating: " ", count: widths[column] - text.count)
            }.joined(separator: "  ")
        }.joined(separator: "\n")
    }
}

/// Why an `apikey` command could not do what it was asked.
public enum APIKeyError: Error, Equatable, CustomStringConvertible {
    /// `--ttl-seconds` outside 1...``APIKey/maxLifetimeSeconds``.
    case badLifetime(Int64)
    /// No key has this id.
    case notFound(String)

    public var description: String {
        switch self {
        case .badLifetime(let seconds): "--ttl-seconds must be 1...\(APIKey.maxLifetimeSeconds) seconds, not \(seconds)"
        case .notFound(let id): "no API key with id \(id) (see `herald-server apikey list`)"
        }
    }
}

/// A presented key that is known, matches its hash, and is neither expired nor revoked.
struct VerifiedAPIKey: Equatable {
    /// The key's public id.
    var id: String
    /// What it may do.
    var scope: APIKeyScope
}
