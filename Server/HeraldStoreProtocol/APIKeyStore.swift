/// What a backend API key may do. Stored with the key; the API decides which routes need which scope.
public enum APIKeyScope: String, Sendable, Equatable, CaseIterable {
    /// Reads only: the API's GET (and HEAD) endpoints.
    case read
    /// Everything: reads, writes and minting access tokens.
    case full

    /// Whether a key of this scope may call an endpoint that needs `required`.
    public func permits(_ required: APIKeyScope) -> Bool {
        self == .full || required == .read
    }
}

/// A backend API key as stored: its public id, a label, its scope and lifetime, and the SHA-256 of the whole key
/// (never the key).
public struct APIKeyRecord: Sendable, Equatable {
    /// The key's public part (e.g. "3f9a…"), unique.
    public var id: String
    /// A label chosen at creation (`--name`).
    public var name: String
    /// SHA-256 of the full key string.
    public var hash: [UInt8]
    /// Creation time, ms since the epoch.
    public var createdAt: Int64
    /// What the key may do. Keys created before scopes existed are `.full`, which is what they could do.
    public var scope: APIKeyScope
    /// When the key stops working, ms since the epoch; nil: never.
    public var expiresAt: Int64?
    /// When the key was revoked, ms since the epoch; nil: not revoked.
    public var revokedAt: Int64?

    public init(id: String, name: String, hash: [UInt8], createdAt: Int64, scope: APIKeyScope = .full, expiresAt: Int64? = nil, revokedAt: Int64? = nil) {
        self.id = id
        self.name = name
        self.hash = hash
        self.createdAt = createdAt
        self.scope = scope
        self.expiresAt = expiresAt
        self.revokedAt = revokedAt
    }

    /// Whether the key may be used at `now` (ms since the epoch): not revoked and not expired.
    public func isUsable(now: Int64) -> Bool {
        guard revokedAt == nil else { return false }
        guard let expiresAt else { return true }
        return now < expiresAt
    }

    /// The scope read back from a stored column; a value this build does not know is a damaged row, never a guess.
    public static func scope(stored text: String, id: String) throws(StoreError) -> APIKeyScope {
        guard let scope = APIKeyScope(rawValue: text) else {
            throw StoreError(kind: .corrupt, message: "api key \(id) has unknown scope \(text)")
        }
        return scope
    }
}

/// Storage of backend API keys (hashed). Kept apart from ``SyncStore``: only the API and the CLI use it.
public protocol APIKeyStore: AnyObject {
    /// Stores a new key. Throws `.constraint` when the id exists.
    func insertAPIKey(_ key: APIKeyRecord) throws
    /// The key with this public id (revoked and expired ones included), or nil.
    func apiKey(id: String) throws -> APIKeyRecord?
    /// Every key, oldest first (revoked and expired ones included).
    func apiKeys() throws -> [APIKeyRecord]
    /// Marks the key revoked at `at` (ms since the epoch) unless it already is, and returns it as stored afterwards
    /// (an earlier revocation keeps its time); nil when there is no such key.
    func revokeAPIKey(id: String, at: Int64) throws -> APIKeyRecord?
}
