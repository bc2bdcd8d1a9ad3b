import ArgumentParser
import Foundation
import HeraldProtocol
import HeraldServer
import HeraldStore
import HeraldStorePostgres

/// `herald-server token --store postgres://…`: the same token as ``TokenIssuer/issue(dbPath:user:name:secret:ttlSeconds:)``
/// but against the shared PostgreSQL store of a multi-node deployment (where the user and the secret live).
enum SharedStoreToken {
    static func issue(storeURL: String, user: String, name: String?, secret: String?, ttlSeconds: Int) throws -> String {
        guard !user.isEmpty, user.utf8.count <= ProtocolLimits.default.maxIdBytes else {
            throw ValidationError("user id must be 1-\(ProtocolLimits.default.maxIdBytes) bytes")
        }
        guard ttlSeconds > 0 else { throw ValidationError("ttl must be positive") }
        let store = try PostgresStore(url: storeURL)
        defer { store.close() }
        let key = try SigningSecret.resolve(option: secret, store: store)
        let displayName = try store.transaction { () throws -> String in
            let existing = try store.user(id: user)
            let chosen = name.flatMap { $0.isEmpty ? nil : $0 } ?? existing?.name ?? user
            if existing?.name != chosen { try store.upsertUser(id: user, name: chosen) }
            return chosen
        }
        let now = Int64(Date().timeIntervalSince1970)
        return JSONWebToken.sign(TokenClaims(sub: user, name: displayName, iat: now, exp: now + Int64(ttlSeconds)), secret: key)
    }
}
