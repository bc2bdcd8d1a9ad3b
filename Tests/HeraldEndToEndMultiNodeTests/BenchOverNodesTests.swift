import Foundation
import HeraldTestSupport
import Testing

extension EndToEnd {
    /// `herald-bench chat` as `.bench/cluster.sh` runs it: three nodes on one database (`--server` repeated).
    @Suite("herald-bench chat over several nodes")
    struct BenchOverNodes {
        static let secret = "bench-nodes-secret"

        @Test("chat over 3 nodes: every DM crosses nodes, every message reaches its partner once, latency is reported for each receiving node")
        func chatOverThreeNodes() throws {
            let nodes = try Nodes(count: 3, pushGrace: 0, arguments: ["--secret", Self.secret])
            defer { nodes.stop() }
            let run = try runToCompletion(HeraldBinaries.bench, [
                "chat", "--secret", Self.secret, "-u", "12", "--per-user", "2", "--duration-seconds", "1", "--drain-seconds", "10", "--quiet",
                "--server", nodes.nodes[0].url, "--server", nodes.nodes[1].url, "--server", nodes.nodes[2].url,
            ])
            let result = run.lastJSONObject ?? [:]
            #expect(run.status == 0, "\(result) \(run.standardError.suffix(2000))")
            #expect(result["nodes"] as? Int == 3, "\(result)")
            #expect(result["dms_crossing_nodes"] as? Int == 6, "all six DMs cross nodes: \(result)")
            #expect((result["acked"] as? Int ?? 0) >= 12, "\(result)")
            #expect(result["lost"] as? Int == 0 && result["duplicated"] as? Int == 0 && result["unacked"] as? Int == 0, "\(result)")
            let byNode = result["latency_ms_by_node"] as? [[String: Any]] ?? []
            #expect(byNode.count == 3, "a p50/p99 for each receiving node: \(result)")
            #expect(byNode.allSatisfy { $0["p50"] != nil && $0["p99"] != nil }, "\(byNode)")
        }
    }
}
