import Foundation
import HeraldProtocol
import HeraldStoreProtocol

/// Why a token could not be issued.
public struct TokenIssueError: Error, Sendable, CustomStringConvertible {
    public var message: String
    public var description: String { message }
}

/// Issues access tokens: what `herald-server token <user> [--name] [--db] [--secret] [--ttl-seconds]` runs.
public enum TokenIssuer {
    /// Checks the arguments, then opens a store with `open`, issues the token from it and closes it: a typo creates no
    /// database file or connection. What `herald-server token` runs on whichever store `--db`/`--store` name.
    public static func issue(
        opening open: () throws -> any SyncStore, user: String, name: String?, secret: String?, ttlSeconds: Int
    ) throws -> String {
        try validate(user: user, name: name, ttlSeconds: ttlSeconds)
        let store = try open()
        defer { store.close() }
        return try issue(store: store, user: user, name: name, secret: secret, ttlSeconds: ttlSeconds)
    }

    /// Creates the user in `store` if needed (or renames it when `name` is given) and returns a signed HS256 token.
    ///
    /// The one implementation behind every way of issuing a token. Safe while servers use the same store: the
    /// user is written in one transaction and the secret is created atomically by whichever process comes first.
    /// The caller owns `store` and closes it.
    ///
    /// - Parameters:
    ///   - store: an open store (where the user and the stored secret live).
    ///   - user: the user id (``Identifiers/isUserId(_:)``).
    ///   - name: the display name; nil keeps the stored one (or uses the id for a new user).
    ///   - secret: `--secret`; nil uses (or creates) the secret stored in `store`.
    ///   - ttlSeconds: lifetime; must be positive.
    /// - Throws: ``TokenIssueError`` for a bad user id or lifetime (before touching the store), `StoreError` from the store.
    public static func issue(store: any SyncStore, user: String, name: String?, secret: String?, ttlSeconds: Int) throws -> String {
        try validate(user: user, name: name, ttlSeconds: ttlSeconds)
        let key = try SigningSecret.resolve(option: secret, store: store)
        let displayName = try store.transaction { () throws -> String in
            let existing = try store.user(id: user)
            let chosen = name.flatMap { $0.isEmpty ? nil : $0 } ?? existing?.name ?? user
            if existing?.name != chosen { try store.upsertUser(id: user, name: chosen) }
            return chosen
        }
        let now = Int64(Date().timeIntervalSince1970)
        // Dated past the user's latest sign-out (any device's: this token may connect as any), which refuses tokens up
        // to the clock skew ahead of it.
        let issuedAt = TokenTimes.issuedAt(now: now, signedOutUntil: try store.signedOutUntil(user: user, device: nil))
        let claims = TokenClaims(sub: user, name: displayName, iat: issuedAt, exp: now + Int64(ttlSeconds))
        return JSONWebToken.sign(claims, keys: key)
    }

    /// Checks the arguments before any store is opened, so a typo creates no database file or connection.
    private static func validate(user: String, name: String?, ttlSeconds: Int) throws {
        guard Identifiers.isUserId(user) else { throw TokenIssueError(message: "user id must be \(Identifiers.userIdRule)") }
        if let name, !name.isEmpty, !Identifiers.isDisplayName(name) {
            throw TokenIssueError(message: "name must be \(Identifiers.displayNameRule)")
        }
        guard ttlSeconds > 0 else { throw TokenIssueError(message: "ttl must be positive") }
    }
}
