import Foundation
import HeraldTestSupport
import Testing

extension EndToEnd {
    /// `herald-bench crowd` as `.bench/crowd.sh` runs it where one process may not hold every socket: several nodes on
    /// one database (`--server` repeated, `--node-pid`) and several load processes (`--processes`).
    @Suite("herald-bench crowd over several nodes and processes")
    struct CrowdOverNodes {
        static let secret = "crowd-nodes-secret"

        @Test("crowd --processes 3 over 3 nodes: each node holds its third (its per-address limit refuses more), the group spans the nodes and gets every message once")
        func crowdOverThreeNodes() throws {
            // 300 devices from one address: 100 a node when they are spread, past the limit of 110 on any node that got more.
            let nodes = try Nodes(count: 3, pushGrace: 0, arguments: ["--secret", Self.secret, "--max-connections-per-ip", "110"])
            defer { nodes.stop() }
            let run = try runToCompletion(HeraldBinaries.bench, [
                "crowd", "--secret", Self.secret, "-d", "300", "-n", "50", "--rate", "20", "--idle-seconds", "0.5", "--processes", "3",
                "--server", nodes.nodes[0].url, "--server", nodes.nodes[1].url, "--server", nodes.nodes[2].url,
                "--server-pid", String(nodes.nodes[0].pid), "--node-pid", String(nodes.nodes[1].pid), "--node-pid", String(nodes.nodes[2].pid),
                "--quiet", "--duration-seconds", "1", "--drain-seconds", "10", "--setup-timeout-seconds", "60",
            ])
            let result = run.lastJSONObject ?? [:]
            #expect(run.status == 0, "\(result) \(run.standardError.suffix(2000)) \(nodes.standardError.suffix(2000))")
            #expect(result["nodes"] as? Int == 3 && result["processes"] as? Int == 3, "\(result)")
            #expect(result["devices_per_process"] as? [Int] == [100, 100, 100], "\(result)")
            #expect(result["other_processes_dropped_connections"] as? Int == 0, "\(result)")
            let acked = result["acked"] as? Int ?? 0
            #expect(acked >= 10, "20 messages/s for 1 s: \(result)")
            #expect(result["deliveries"] as? Int == acked * 50, "every member on every node, each message once: \(result)")
            #expect(result["lost"] as? Int == 0 && result["duplicated"] as? Int == 0 && result["dropped_connections"] as? Int == 0)
            #expect((result["latency_ms_by_node"] as? [Any])?.count == 3, "the group's members are on all three nodes: \(result)")
            // The memory figures add up the three nodes' RSS.
            let before = result["server_rss_before_kib"] as? Int ?? 0
            let oneNode = ProcessMemory.residentKiB(nodes.nodes[0].pid)
            #expect(oneNode > 0, "node 0's RSS is readable")
            #expect(before > oneNode, "three nodes' RSS, not one: \(before) vs \(oneNode)")
        }
    }
}
