import COpenSSL
import Foundation
import HeraldStore

/// Backend API keys: `hk_<id>_<secret>`, where `id` is 16 hex digits naming the stored row and `secret` is 64 hex
/// digits (32 bytes from `RAND_bytes`). The database keeps only SHA-256 of the whole key; a presented key is
/// looked up by its id and its hash compared with `CRYPTO_memcmp`, so timing reveals nothing of the secret.
public enum APIKey {
    static let prefix = "hk_"
    static let idHexDigits = 16
    static let secretHexDigits = 64

    /// A fresh key and its public id.
    static func generate() -> (key: String, id: String) {
        let id = hex(Crypto.randomBytes(idHexDigits / 2))
        return ("\(prefix)\(id)_\(hex(Crypto.randomBytes(secretHexDigits / 2)))", id)
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

    /// SHA-256 of the key's UTF-8 bytes (OpenSSL EVP).
    static func hash(_ key: String) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        let bytes = Array(key.utf8)
        bytes.withUnsafeBytes { input in
            digest.withUnsafeMutableBytes { output in
                _ = EVP_Digest(input.baseAddress, input.count, output.baseAddress?.assumingMemoryBound(to: UInt8.self), &length, EVP_sha256(), nil)
            }
        }
        return Array(digest.prefix(Int(length)))
    }

    /// Whether two hashes are equal, in time that depends only on their length (`CRYPTO_memcmp`).
    static func hashesMatch(_ lhs: [UInt8], _ rhs: [UInt8]) -> Bool {
        guard lhs.count == rhs.count, !lhs.isEmpty else { return false }
        return lhs.withUnsafeBytes { a in rhs.withUnsafeBytes { b in CRYPTO_memcmp(a.baseAddress, b.baseAddress, a.count) == 0 } }
    }

    static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Creates a key in the database at `dbPath` (created when missing) and returns it: what
    /// `herald-server apikey create` prints. The key itself is not stored and cannot be shown again.
    public static func create(dbPath: String, name: String) throws -> String {
        let store = try SQLiteStore(path: dbPath)
        defer { store.close() }
        let (key, id) = generate()
        try store.insertAPIKey(APIKeyRecord(id: id, name: name, hash: hash(key), createdAt: Int64(Date().timeIntervalSince1970 * 1000)))
        return key
    }
}

/// Checks presented keys against the database, from any loop thread: one SQLite connection of its own (WAL
/// readers never wait for the sync thread's writes) behind a lock, so keys created while the server runs work at once.
final class APIKeyVerifier: @unchecked Sendable {
    // @unchecked: `store` is only used with `lock` held.
    private let store: SQLiteStore
    private let lock = NSLock()

    init(dbPath: String) throws {
        store = try SQLiteStore(path: dbPath)
    }

    /// The id of the key when it is valid; nil for a malformed, unknown or wrong key (all refused alike).
    func verify(_ presented: String) -> String? {
        guard let id = APIKey.id(of: presented) else { return nil }
        let presentedHash = APIKey.hash(presented)
        lock.lock()
        let record = try? store.apiKey(id: id)
        lock.unlock()
        guard let record, APIKey.hashesMatch(record.hash, presentedHash) else { return nil }
        return id
    }

    func close() {
        lock.lock()
        store.close()
        lock.unlock()
    }
}
