import HeraldServer
import HeraldStorePostgres

/// `herald-server token --store postgres://…`: ``TokenIssuer/issue(store:user:name:secret:ttlSeconds:)`` against the
/// shared PostgreSQL store of a multi-node deployment (where the user and the secret live), the same token as the
/// SQLite path gives.
enum SharedStoreToken {
    static func issue(storeURL: String, user: String, name: String?, secret: String?, ttlSeconds: Int) throws -> String {
        let store = try PostgresStore(url: storeURL)
        defer { store.close() }
        return try TokenIssuer.issue(store: store, user: user, name: name, secret: secret, ttlSeconds: ttlSeconds)
    }
}
