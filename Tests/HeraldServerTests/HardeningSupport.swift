import Foundation
import Glibc
import HeraldProtocol
@testable import HeraldServer
import HeraldTestSupport
import Testing

/// Helpers of the Hardening suites: raw HTTP probes from a chosen loopback source address, /metrics
/// parsing, the server's resident memory.
enum Hardening {
    /// alice, synced, in a DM with bob (both minted on `server`): the set-up of the limit tests that send.
    static func aliceInDMWithBob(_ server: ServerHarness) throws -> (SyncTestClient, String) {
        let alice = try SyncTestClient(port: server.port, token: try token(server, "alice"))
        _ = try token(server, "bob")
        try alice.request(#"{"type":"sync"}"#)
        let c = try #require(try alice.request(#"{"type":"dm","user":"bob"}"#).conversation?.id)
        return (alice, c)
    }

    /// Opens a TCP connection from `sourceIP` (any 127.0.0.0/8 address works on Linux loopback) to the server,
    /// sends `request`, and returns the HTTP status of the answer (nil when the server closed without one).
    static func probe(port: Int, sourceIP: String = "127.0.0.1", request: [UInt8], timeoutMs: Int32 = 5_000) -> Int? {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var source = sockaddr_in()
        source.sin_family = sa_family_t(AF_INET)
        inet_pton(AF_INET, sourceIP, &source.sin_addr)
        var target = sockaddr_in()
        target.sin_family = sa_family_t(AF_INET)
        target.sin_port = UInt16(port).bigEndian
        inet_pton(AF_INET, "127.0.0.1", &target.sin_addr)
        let bound = withUnsafePointer(to: &source) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        let connected = withUnsafePointer(to: &target) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        guard bound == 0, connected == 0 else { return nil }
        _ = request.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        var received: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while !received.contains(UInt8(ascii: "\n")) {
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, timeoutMs) == 1 else { return nil }
            let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { break }
            received += chunk[0..<count]
        }
        let line = String(decoding: received.prefix { $0 != UInt8(ascii: "\r") && $0 != UInt8(ascii: "\n") }, as: UTF8.self)
        let parts = line.split(separator: " ")
        guard parts.count >= 2, parts[0].hasPrefix("HTTP/1.") else { return nil }
        return Int(parts[1])
    }

    /// A valid upgrade request for `path`.
    static func upgrade(_ path: String = "/echo") -> [UInt8] { RawWebSocketClient.upgradeRequest(path: path).bytes }

    /// `GET path` on a fresh connection: status and body.
    static func get(port: Int, _ path: String) throws -> RawHTTPResponse {
        let client = try RawWebSocketClient(port: port)
        defer { client.close() }
        try client.send("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        return try client.readHTTPResponse()
    }

    /// One sample of the Prometheus text exposition format.
    struct Sample: Equatable {
        var name: String
        var labels: [String: String]
        var value: Double
    }

    /// Parses Prometheus text: every line must be `# HELP name ...`, `# TYPE name type` or `name{labels} value`;
    /// returns nil (and the first bad line) otherwise.
    static func parsePrometheus(_ text: String) -> (samples: [Sample], badLine: String?) {
        let name = #"[a-zA-Z_:][a-zA-Z0-9_:]*"#
        let sampleLine = try! Regex(#"^(\#(name))(\{([a-zA-Z_][a-zA-Z0-9_]*="[^"\\]*"(,[a-zA-Z_][a-zA-Z0-9_]*="[^"\\]*")*)?\})? (-?[0-9.eE+-]+|\+Inf|NaN)$"#)
        let help = try! Regex(#"^# HELP \#(name) .+$"#)
        let type = try! Regex(#"^# TYPE \#(name) (counter|gauge|histogram|summary|untyped)$"#)
        var samples: [Sample] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) where !line.isEmpty {
            if line.wholeMatch(of: help) != nil || line.wholeMatch(of: type) != nil { continue }
            guard line.wholeMatch(of: sampleLine) != nil else { return (samples, String(line)) }
            let space = line.lastIndex(of: " ")!
            let head = line[..<space]
            let value = Double(line[line.index(after: space)...]) ?? .infinity
            var labels: [String: String] = [:]
            var metric = String(head)
            if let brace = head.firstIndex(of: "{") {
                metric = String(head[..<brace])
                for pair in head[head.index(after: brace)..<head.index(before: head.endIndex)].split(separator: ",") {
                    let parts = pair.split(separator: "=", maxSplits: 1)
                    labels[String(parts[0])] = String(parts[1].dropFirst().dropLast())
                }
            }
            samples.append(Sample(name: metric, labels: labels, value: value))
        }
        return (samples, nil)
    }

    /// The server's metrics as `name` / `name{k=v,...}` → value.
    static func metrics(port: Int) throws -> [String: Double] {
        let response = try get(port: port, "/metrics")
        try #require(response.status == 200)
        return parsedMetrics(response.body)
    }

    /// The metrics when the server serves them now, nil when it answers otherwise (e.g. 503 while a connection slot
    /// is still being freed): for polling, where a refusal is not a failure yet.
    static func metricsIfServed(port: Int) -> [String: Double]? {
        guard let response = try? get(port: port, "/metrics"), response.status == 200 else { return nil }
        return parsedMetrics(response.body)
    }

    private static func parsedMetrics(_ body: String) -> [String: Double] {
        let (samples, bad) = parsePrometheus(body)
        #expect(bad == nil, "not Prometheus text: \(bad ?? "")")
        var out: [String: Double] = [:]
        for sample in samples {
            let key = sample.labels.isEmpty ? sample.name
                : sample.name + "{" + sample.labels.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: ",") + "}"
            out[key] = sample.value
        }
        return out
    }

    /// A token for `user` on the server's database.
    static func token(_ server: ServerHarness, _ user: String) throws -> String {
        try TokenIssuer.issue(dbPath: server.databasePath, user: user, name: user.capitalized, secret: nil, ttlSeconds: 3_600)
    }

    /// The HTTP status a `/sync` upgrade with `token` gets (101 when accepted).
    static func syncUpgradeStatus(port: Int, token: String) throws -> Int {
        let client = try RawWebSocketClient(port: port)
        defer { client.close() }
        try client.send(RawWebSocketClient.upgradeRequest(path: "/sync", extraHeaders: [("Authorization", "Bearer \(token)")]).bytes)
        return try client.readHTTPResponse().status
    }

    /// Waits until `condition` holds (polling), up to `timeoutMs`.
    static func eventually(timeoutMs: Int = 5_000, _ condition: () throws -> Bool) rethrows -> Bool {
        let deadline = Date().addingTimeInterval(Double(timeoutMs) / 1000)
        while Date() < deadline {
            if try condition() { return true }
            usleep(20_000)
        }
        return try condition()
    }
}
