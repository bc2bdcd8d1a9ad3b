import HeraldTestSupport

/// A client as the multi-node tests start one: connected as `device`, synced, and in `scene`.
extension SyncTestClient {
    /// - Parameter scene: a scene request's fields without `type`, e.g. `"scene":"background"`.
    static func synced(port: Int, token: String, device: String, scene: String) throws -> SyncTestClient {
        let client = try SyncTestClient(port: port, token: token, device: device)
        try client.request(#"{"type":"sync"}"#)
        try client.request(#"{"type":"scene",\#(scene)}"#)
        return client
    }
}

/// `count` real `herald-server` nodes on one fresh database of the shared PostgreSQL cluster, each started with
/// `arguments` after `--store`; the database's URL beside them.
func startNodes(_ count: Int, _ arguments: [String] = ["--push-grace-seconds", "0", "--sync-send-rate", "0"]) throws -> (url: String, nodes: [ServerHarness]) {
    let url = try PostgresCluster.newDatabase()
    return (url, try (0..<count).map { _ in try ServerHarness.start(["--store", url] + arguments) })
}
