import Foundation
@testable import HeraldServer
import HeraldTestSupport
import Testing

/// `herald-server apikey … --store` on the shared PostgreSQL store of several nodes: every node's /api/v1 reads its
/// keys from that store.
@Suite("Multi-node: API keys on the shared PostgreSQL store", .serialized,
       .enabled(if: PostgresCluster.binariesAvailable, PostgresCluster.skipReason))
struct MultiNodeAPIKeyTests {
    /// `herald-server apikey <arguments> --store <url>`.
    private static func apikey(_ arguments: [String], store url: String) throws -> CompletedProcess {
        try runToCompletion(ServerHarness.binaryPath(), ["apikey"] + arguments + ["--store", url], timeout: .seconds(30))
    }

    @Test("A key made with `apikey create --store` works on every node; `apikey list` shows it; after `apikey revoke` every node refuses it")
    func keysLiveInTheSharedStore() throws {
        let url = try PostgresCluster.newDatabase()
        let nodes = try (0..<2).map { _ in try ServerHarness.start(["--store", url, "--api-rate-limit", "0"]) }
        defer { nodes.forEach { $0.stop() } }

        let created = try Self.apikey(["create", "--name", "shared"], store: url)
        #expect(created.status == 0, "\(created.standardError)")
        let key = created.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
        let id = try #require(APIKey.id(of: key), "\(created.standardOutput)")
        #expect(try APIClient(port: nodes[0].port, key: key).request("POST", "/api/v1/users", json: #"{"id":"alice","name":"Alice"}"#).status == 201)
        #expect(try APIClient(port: nodes[1].port, key: key).request("GET", "/api/v1/users/alice").status == 200)

        let list = try Self.apikey(["list"], store: url)
        #expect(list.status == 0 && list.standardOutput.contains(id) && list.standardOutput.contains("shared"), "\(list.standardError)")
        #expect(!list.standardOutput.contains(key), "the key itself is never shown")

        #expect(try Self.apikey(["revoke", id], store: url).status == 0)
        for node in nodes {
            let refused = try APIClient(port: node.port, key: key).request("GET", "/api/v1/users/alice")
            #expect(refused.status == 401 && refused.errorCode == "unauthorized")
        }
    }
}
