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
