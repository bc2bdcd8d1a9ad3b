import Foundation
import Glibc
import HeraldProtocol
@testable import HeraldServer
import HeraldTestSupport
import Testing

/// Security review: limits that fire are logged at warning with the peer and the reason, rate-limited so a flood of
/// refusals cannot become a flood of log lines, and /metrics can require a token. Real binary, its stderr read back.
@Suite("Hardening: security logging (binary)", .serialized)
struct HardeningLoggingTests {
    /// The server's warning lines of one kind (swift-log's stream handler prints metadata as `key=value`).
    static func warnings(_ server: ServerHarness, kind: String) -> [Substring] {
        server.standardError.split(separator: "\n").filter { $0.contains(" warning ") && $0.contains("kind=\(kind)") }
    }

    /// The N of every "suppressed N similar warnings" line of `kind`.
    static func suppressedCounts(_ server: ServerHarness, kind: String) -> [Int] {
        warnings(server, kind: kind).compactMap { line in
            guard let range = line.range(of: "suppressed ") else { return nil }
            return Int(line[range.upperBound...].prefix { $0.isNumber })
        }
    }

    @Test("2,000 upgrades with a bad token: each is refused 401, a few warnings name peer, route and reason, and summaries account for every other one")
    func badTokenFloodIsRateLimited() throws {
        let server = try ServerHarness.start(["--warnings-per-second", "10", "--warning-summary-interval-ms", "300"])
        defer { server.stop() }
        let request = RawWebSocketClient.upgradeRequest(path: "/sync", extraHeaders: [("Authorization", "Bearer not-a-token")]).bytes
        var refused = 0
        for _ in 0..<2_000 where Hardening.probe(port: server.port, request: request) == 401 { refused += 1 }
        #expect(refused == 2_000)
        // Every refusal is either a warning line or counted in a summary; wait for the last summary.
        var lines: [Substring] = []
        var suppressed: [Int] = []
        let accounted = Hardening.eventually(timeoutMs: 10_000) {
            lines = Self.warnings(server, kind: "auth_failed").filter { $0.contains("refused: authentication failed") }
            suppressed = Self.suppressedCounts(server, kind: "auth_failed")
            return lines.count + suppressed.reduce(0, +) == 2_000
        }
        #expect(accounted, "\(lines.count) lines + \(suppressed) suppressed != 2000")
        #expect(!suppressed.isEmpty, "a summary says how many were suppressed")
        #expect(lines.count < 200, "\(lines.count) warning lines for 2,000 refusals")
        let first = try #require(lines.first)
        #expect(first.contains("peer=127.0.0.1:") && first.contains("route=/sync") && first.contains("status=401") && first.contains("reason="))
        #expect(!server.standardError.contains("not-a-token"), "the token presented is never logged")
        #expect(server.standardError.contains("similar warnings in the last"))
    }

    @Test("An API request with an unknown key is refused 401 and logged at warning with peer, route and status; the key is not logged")
    func apiRefusalIsLogged() throws {
        let server = try ServerHarness.start()
        defer { server.stop() }
        let client = try RawWebSocketClient(port: server.port)
        defer { client.close() }
        try client.send("GET /api/v1/users/alice HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer hk_secret_guess\r\nConnection: close\r\n\r\n")
        #expect(try client.readHTTPResponse().status == 401)
        #expect(Hardening.eventually { !Self.warnings(server, kind: "auth_failed").isEmpty })
        let line = try #require(Self.warnings(server, kind: "auth_failed").first)
        #expect(line.contains("peer=127.0.0.1:") && line.contains("route=GET /api/v1/users/alice") && line.contains("status=401"))
        #expect(!server.standardError.contains("hk_secret_guess"))
    }

    @Test("A /sync receiver closed as a slow consumer is logged at warning with its remote address and route")
    func slowConsumerCloseIsLogged() throws {
        let server = try ServerHarness.start(["--max-message-bytes", "65536", "--max-text-bytes", "60000", "--max-queued-bytes", "131072",
                                              "--socket-send-buffer-bytes", "65536", "--sync-send-rate", "0", "--push-grace-seconds", "0"])
        defer { server.stop() }
        let alice = try SyncTestClient(port: server.port, token: try Hardening.token(server, "alice"), timeoutMilliseconds: 10_000)
        try alice.request(#"{"type":"sync"}"#)
        let slow = try StalledSyncClient(port: server.port, token: try Hardening.token(server, "slow"))
        defer { slow.close() }
        _ = try slow.syncLatest()
        var local = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &local) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(slow.fd, $0, &length) } }
        let slowPeer = "127.0.0.1:\(UInt16(bigEndian: local.sin_port))"
        let c = try #require(try alice.request(#"{"type":"dm","user":"slow"}"#).conversation?.id)
        let text = String(repeating: "x", count: 50_000)
        var n = 0
        while n < 60, Self.warnings(server, kind: "slow_consumer").isEmpty {
            #expect(try alice.request(#"{"type":"send","conversation":"\#(c)","clientMessageId":"m\#(n)","text":"\#(text)"}"#).ok)
            n += 1
        }
        #expect(Hardening.eventually { !Self.warnings(server, kind: "slow_consumer").isEmpty })
        let line = try #require(Self.warnings(server, kind: "slow_consumer").first)
        #expect(line.contains("peer=\(slowPeer)"), "\(line) should name \(slowPeer)")
        #expect(line.contains("route=/sync") && line.contains("limit=131072"))
        #expect(slow.isClosedByServer())
    }

    @Test("--metrics-token-file: /metrics is 401 without a bearer and with a wrong one (logged), 200 with the token")
    func metricsTokenFile() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("herald-metrics-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let tokenFile = directory.appendingPathComponent("metrics-token").path
        #expect(FileManager.default.createFile(atPath: tokenFile, contents: Data("s3cret-metrics-token\n".utf8), attributes: [.posixPermissions: 0o600]))

        let server = try ServerHarness.start(["--metrics-token-file", tokenFile])
        defer { server.stop() }
        #expect(try Self.metricsStatus(server.port, authorization: nil) == 401)
        #expect(try Self.metricsStatus(server.port, authorization: "Bearer s3cret-metrics-tokeN") == 401)
        #expect(try Self.metricsStatus(server.port, authorization: "Bearer s3cret-metrics-token-and-more") == 401)
        #expect(try Self.metricsStatus(server.port, authorization: "Basic s3cret-metrics-token") == 401)
        #expect(try Self.metricsStatus(server.port, authorization: "Bearer s3cret-metrics-token") == 200)
        #expect(try Self.metricsStatus(server.port, authorization: "bearer s3cret-metrics-token") == 200, "the scheme is case-insensitive")
        #expect(Hardening.eventually { Self.warnings(server, kind: "auth_failed").filter { $0.contains("route=/metrics") }.count == 4 })
        #expect(!server.standardError.contains("s3cret"), "no token, right or wrong, is logged")

        // The variable works as the flag does.
        let fromEnvironment = try ServerHarness.start(environment: ["HERALD_METRICS_TOKEN_FILE": tokenFile])
        defer { fromEnvironment.stop() }
        #expect(try Self.metricsStatus(fromEnvironment.port, authorization: nil) == 401)
        #expect(try Self.metricsStatus(fromEnvironment.port, authorization: "Bearer s3cret-metrics-token") == 200)
    }

    @Test("--metrics-token-file refuses an empty file and one readable by others: the server does not start")
    func metricsTokenFileIsReadLikeASecret() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("herald-metrics-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let empty = directory.appendingPathComponent("empty").path
        #expect(FileManager.default.createFile(atPath: empty, contents: Data("\n".utf8), attributes: [.posixPermissions: 0o600]))
        let open = directory.appendingPathComponent("open").path
        #expect(FileManager.default.createFile(atPath: open, contents: Data("token\n".utf8), attributes: [.posixPermissions: 0o644]))
        for (file, complaint) in [(empty, "is empty"), (open, "accessible by group or others")] {
            do {
                let server = try ServerHarness.start(["--metrics-token-file", file])
                server.stop()
                Issue.record("started with \(file)")
            } catch let error as HarnessError {
                guard case .exitedEarly(let status, _, let log) = error else { Issue.record("\(error)"); continue }
                #expect(status != 0)
                #expect(log.contains("metrics token") && log.contains(complaint), "\(log)")
            }
        }
    }

    @Test("A /sync request whose id is 1e30 gets one bad_request error naming the id, and the connection keeps answering")
    func nonIntegerIdIsBadRequest() throws {
        let server = try ServerHarness.start()
        defer { server.stop() }
        let client = try SyncTestClient(port: server.port, token: try Hardening.token(server, "alice"))
        defer { client.close() }
        for frame in [#"{"id":1e30}"#, #"{"type":"sync","id":1e30}"#, #"{"type":"sync","id":2.5}"#] {
            try client.sendRaw(frame)
            let response = try client.response(id: nil)
            #expect(!response.ok)
            #expect(response.error?.code == .badRequest, "\(frame): \(String(describing: response.error))")
            #expect(response.error?.message.contains("field 'id' must be an integer") == true)
        }
        #expect(try client.request(#"{"type":"sync"}"#).ok, "the connection stays open and answers the next request")
    }

    private static func metricsStatus(_ port: Int, authorization: String?) throws -> Int {
        let client = try RawWebSocketClient(port: port)
        defer { client.close() }
        let header = authorization.map { "Authorization: \($0)\r\n" } ?? ""
        try client.send("GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\n\(header)Connection: close\r\n\r\n")
        let response = try client.readHTTPResponse()
        if response.status == 200 { #expect(Hardening.parsePrometheus(response.body).badLine == nil) }
        return response.status
    }
}
