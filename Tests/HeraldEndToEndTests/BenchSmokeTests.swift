import Foundation
import HeraldTestSupport
import Testing

extension EndToEnd {
    /// `herald-bench` against the real server: every scenario runs briefly and reports a clean ledger. Only that it
    /// works and counts nothing lost and nothing twice is checked here; timing belongs to BENCHMARKS.md.
    @Suite("herald-bench smoke")
    struct BenchSmoke {
        static let secret = "bench-smoke-secret"

        /// Runs `herald-bench <arguments>` against `server` and returns its one-line JSON result; with `openFileLimit`,
        /// under that limit (soft and hard: a process may lower its own hard limit), as on a machine where one process
        /// cannot hold a whole crowd.
        func bench(_ server: TestServer, _ arguments: [String], openFileLimit: Int? = nil) throws -> (status: Int32, result: [String: Any]) {
            let all = arguments + ["--server", server.url, "--quiet", "--duration-seconds", "1", "--drain-seconds", "10", "--setup-timeout-seconds", "30"]
            let run: CompletedProcess
            if let limit = openFileLimit {
                run = try runToCompletion("/bin/sh", ["-c", "ulimit -n \(limit) && exec \"$0\" \"$@\"", HeraldBinaries.bench] + all)
            } else {
                run = try runToCompletion(HeraldBinaries.bench, all)
            }
            guard let object = run.lastJSONObject else { throw ProcessHarnessError("herald-bench printed no JSON result; stderr: \(run.standardError)") }
            return (run.status, object)
        }

        @Test("R1, R2: fanout to a group of 6 members x 2 devices, 2 senders: every device gets every message once")
        func fanout() throws {
            let server = try TestServer(pushGrace: 0, arguments: ["--secret", Self.secret])
            let run = try bench(server, ["fanout", "--secret", Self.secret, "-n", "6", "--devices", "2", "-s", "2", "--inflight", "8"])
            #expect(run.result["error"] == nil, "\(run.result)")
            #expect(run.status == 0, "\(run.result)")
            #expect((run.result["acked"] as? Int ?? 0) > 0)
            #expect(run.result["deliveries"] as? Int == (run.result["acked"] as? Int).map { $0 * 12 })
            #expect(run.result["lost"] as? Int == 0)
            #expect(run.result["duplicated"] as? Int == 0)
            // The generator's own CPU and each CPU's busy and steal time, so a noisy run can be recognised.
            #expect((run.result["gen_cpu_pct"] as? Double).map { $0 >= 0 } == true, "\(run.result)")
            let steal = run.result["steal_pct"] as? [Double] ?? []
            #expect(steal.count == (run.result["cpu_busy_pct"] as? [Double])?.count && steal.count >= 1, "\(run.result)")
        }

        @Test("R1, R2: fanout with its window counted in deliveries (as wsbench counts): every device gets every message once")
        func fanoutWindowOfDeliveries() throws {
            let server = try TestServer(pushGrace: 0, arguments: ["--secret", Self.secret])
            let run = try bench(server, [
                "fanout", "--secret", Self.secret, "-n", "6", "--devices", "2", "-s", "2", "--inflight", "8", "--inflight-counts", "deliveries",
            ])
            #expect(run.result["error"] == nil, "\(run.result)")
            #expect(run.status == 0, "\(run.result)")
            #expect(run.result["pace"] as? String == "inflight 8 (deliveries)", "\(run.result)")
            #expect((run.result["acked"] as? Int ?? 0) > 0)
            #expect(run.result["deliveries"] as? Int == (run.result["acked"] as? Int).map { $0 * 12 })
            #expect(run.result["lost"] as? Int == 0)
            #expect(run.result["duplicated"] as? Int == 0)
        }

        @Test("R1: chat in DMs with tokens from `herald-server token` (users created by the token command)")
        func chatWithServerTokens() throws {
            let server = try TestServer(pushGrace: 0)
            let run = try bench(server, ["chat", "--server-bin", HeraldBinaries.server, "--db", server.databasePath, "-u", "4", "--per-user", "20"])
            #expect(run.result["error"] == nil, "\(run.result)")
            #expect(run.status == 0, "\(run.result)")
            #expect((run.result["deliveries"] as? Int ?? 0) > 0)
            #expect(run.result["lost"] as? Int == 0)
            #expect(run.result["duplicated"] as? Int == 0)
        }

        @Test("R4: insert with many sends in flight: every send acknowledged, nothing lost or repeated")
        func insert() throws {
            let server = try TestServer(pushGrace: 0, arguments: ["--secret", Self.secret])
            let run = try bench(server, ["insert", "--secret", Self.secret, "-c", "3", "--inflight", "30"])
            #expect(run.result["error"] == nil, "\(run.result)")
            #expect(run.status == 0, "\(run.result)")
            #expect((run.result["acked"] as? Int ?? 0) > 0)
            #expect(run.result["unacked"] as? Int == 0)
            #expect(run.result["lost"] as? Int == 0)
            #expect(run.result["duplicated"] as? Int == 0)
        }

        @Test("R3: connect: devices reconnect and resume with sync after their position")
        func connect() throws {
            let server = try TestServer(pushGrace: 0, arguments: ["--secret", Self.secret])
            let run = try bench(server, ["connect", "--secret", Self.secret, "-d", "10", "--parallel", "4"])
            #expect(run.result["error"] == nil, "\(run.result)")
            #expect(run.status == 0, "\(run.result)")
            #expect((run.result["connects"] as? Int ?? 0) > 0)
            #expect(run.result["failed"] as? Int == 0)
        }

        /// A JSON number as a Double (JSONSerialization gives NSNumber, whole or not); 0 when absent.
        static func number(_ value: Any?) -> Double { (value as? NSNumber)?.doubleValue ?? 0 }

        /// The server's per-address limit in the crowd tests: 300 devices fit only when they come from two addresses.
        static let crowdLimitPerAddress = "160"

        @Test("crowd: 300 live devices from 2 source addresses, the server sees both; a group of 50 of them gets every message once")
        func crowd() throws {
            let server = try TestServer(pushGrace: 0, arguments: ["--secret", Self.secret, "--max-connections-per-ip", Self.crowdLimitPerAddress])
            let run = try bench(server, ["crowd", "--secret", Self.secret, "-d", "300", "--source-addresses", "2", "-n", "50", "--rate", "20",
                                         "--idle-seconds", "0.5", "--server-pid", String(server.pid)])
            #expect(run.result["error"] == nil, "\(run.result)")
            #expect(run.status == 0, "\(run.result)")
            // The kernel's own account of each socket's address (getsockname), and the server, whose per-address limit
            // would have refused the 161st connection from one address, agree that both addresses were used.
            #expect(run.result["connections_by_source"] as? [String: Int] == ["127.0.0.1": 150, "127.0.0.2": 150], "\(run.result)")
            #expect(run.result["connections"] as? Int == 300)
            let acked = run.result["acked"] as? Int ?? 0
            #expect(acked >= 10, "20 messages/s for 1 s: \(run.result)")
            #expect(run.result["deliveries"] as? Int == acked * 50, "\(run.result)")
            #expect(run.result["lost"] as? Int == 0)
            #expect(run.result["duplicated"] as? Int == 0)
            #expect(run.result["dropped_connections"] as? Int == 0)
            #expect(Self.number(run.result["connects_per_s"]) > 0, "\(run.result)")
            // The load starts once the 49 named members have heard of the group.
            #expect((run.result["group_setup_events"] as? Int ?? 0) >= 49, "\(run.result)")
            let latency = run.result["latency_ms"] as? [String: Any] ?? [:]
            #expect(Self.number(latency["p50"]) > 0 && Self.number(latency["p50"]) <= Self.number(latency["p99"]), "\(run.result)")
            // The memory figures are the server's own RSS from /proc: present, and 300 sessions cost something but
            // not megabytes each.
            let before = run.result["server_rss_before_kib"] as? Int ?? 0
            let idle = run.result["server_rss_idle_kib"] as? Int ?? 0
            #expect(before > 0 && idle > before, "\(run.result)")
            let perDevice = Self.number(run.result["server_rss_per_device_kib"])
            #expect(perDevice > 0 && perDevice < 1024, "\(run.result)")
        }

        @Test("crowd: from one source address the same 300 devices meet the server's per-address limit (what the test above relies on)")
        func crowdFromOneAddress() throws {
            let server = try TestServer(pushGrace: 0, arguments: ["--secret", Self.secret, "--max-connections-per-ip", Self.crowdLimitPerAddress])
            let run = try bench(server, ["crowd", "--secret", Self.secret, "-d", "300", "-n", "50", "--idle-seconds", "0", "--server-pid", String(server.pid)])
            #expect(run.status == 2, "\(run.result)")
            #expect((run.result["error"] as? String ?? "").contains("429"), "\(run.result)")
        }

        @Test("crowd --processes 3: 300 live devices from processes allowed 250 open files each; all stay connected, the group gets every message once")
        func crowdInSeveralProcesses() throws {
            let server = try TestServer(pushGrace: 0, arguments: ["--secret", Self.secret, "--max-connections-per-ip", Self.crowdLimitPerAddress])
            let run = try bench(server, ["crowd", "--secret", Self.secret, "-d", "300", "--source-addresses", "2", "-n", "50", "--rate", "20",
                                         "--idle-seconds", "0.5", "--processes", "3", "--server-pid", String(server.pid)], openFileLimit: 250)
            #expect(run.result["error"] == nil, "\(run.result)")
            #expect(run.status == 0, "\(run.result)")
            #expect(run.result["devices_per_process"] as? [Int] == [100, 100, 100], "\(run.result)")
            // This process's share: devices 0...99, spread over both addresses by their crowd-wide index.
            #expect(run.result["connections_by_source"] as? [String: Int] == ["127.0.0.1": 50, "127.0.0.2": 50], "\(run.result)")
            let others = run.result["other_processes_connect"] as? [[String: Any]] ?? []
            #expect(others.map { $0["first"] as? Int } == [100, 200], "\(run.result)")
            #expect(run.result["other_processes_dropped_connections"] as? Int == 0, "\(run.result)")
            #expect(run.result["dropped_connections"] as? Int == 0)
            let acked = run.result["acked"] as? Int ?? 0
            #expect(acked >= 10, "20 messages/s for 1 s: \(run.result)")
            #expect(run.result["deliveries"] as? Int == acked * 50, "\(run.result)")
            #expect(run.result["lost"] as? Int == 0)
            #expect(run.result["duplicated"] as? Int == 0)
        }

        @Test("crowd: the same 300 devices in one process allowed 250 open files are refused before connecting (what --processes is for)")
        func crowdOverTheFileLimit() throws {
            let server = try TestServer(pushGrace: 0, arguments: ["--secret", Self.secret, "--max-connections-per-ip", Self.crowdLimitPerAddress])
            let run = try bench(server, ["crowd", "--secret", Self.secret, "-d", "300", "--source-addresses", "2", "-n", "50",
                                         "--idle-seconds", "0", "--server-pid", String(server.pid)], openFileLimit: 250)
            #expect(run.status == 2, "\(run.result)")
            #expect((run.result["error"] as? String ?? "").contains("open files"), "\(run.result)")
        }

        @Test("crowd: more devices than one address has ephemeral ports is refused before connecting, naming the addresses needed")
        func crowdNeedsMoreAddresses() throws {
            let run = try runToCompletion(HeraldBinaries.bench, ["crowd", "--server", "ws://127.0.0.1:9", "--secret", Self.secret, "--quiet",
                                                                 "--server-pid", String(getpid()), "-d", "70000"], timeout: .seconds(60))
            #expect(run.status == 2, "\(run.standardOutput) \(run.standardError)")
            // The port range has at most 65,535 ports, so 70,000 connections never fit on one address.
            #expect(run.standardError.contains("need --source-addresses"), "\(run.standardError)")
        }
    }
}
