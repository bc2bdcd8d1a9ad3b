import Foundation
import HeraldTestSupport
import Testing

extension EndToEnd {
    /// `herald-bench` against the real server: every scenario runs briefly and reports a clean ledger. Only that it
    /// works and counts nothing lost and nothing twice is checked here; timing belongs to BENCHMARKS.md.
    @Suite("herald-bench smoke")
    struct BenchSmoke {
        static let secret = "bench-smoke-secret"

        /// Runs `herald-bench <arguments>` against `server` and returns its one-line JSON result.
        func bench(_ server: TestServer, _ arguments: [String]) throws -> (status: Int32, result: [String: Any]) {
            let run = try runToCompletion(HeraldBinaries.bench, arguments + ["--url", server.url, "--quiet", "--duration", "1", "--drain", "10",
                                                                             "--setup-timeout", "30"])
            let line = run.standardOutput.split(separator: "\n").last.map(String.init) ?? ""
            let object = (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any]
            guard let object else { throw ProcessHarnessError("herald-bench printed no JSON result; stderr: \(run.standardError)") }
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
    }
}
