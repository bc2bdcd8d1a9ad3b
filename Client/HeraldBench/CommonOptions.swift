import ArgumentParser
import Foundation

/// Options every scenario takes: where the server is, how to get tokens, and the run's bounds.
struct CommonOptions: ParsableArguments {
    @Option(help: ArgumentHelp(
        "The server, ws://127.0.0.1:PORT (loopback only); repeat for further nodes on the same database (default: ws://127.0.0.1:8080).",
        discussion: "Device i connects to the (i % nodes)th --server in order: with two, odd devices are on the second."))
    var server: [String] = []
    @Option(help: "The server's --secret: mint HS256 tokens here (fast; unknown users are created on connect).") var secret: String?
    @Option(help: "Else: run `<server-bin> token <user> --db <db>` once per user (slow for many users).") var serverBin: String?
    @Option(help: "The server's database, for --server-bin.") var db: String?
    @Option(help: "Seconds of measured load.") var durationSeconds: Double = 10
    @Option(help: "Messages (fanout, chat, insert) or connects (connect) at most; the run also ends after --duration-seconds.")
    var count: Int?
    @Option(help: "Seconds to wait after the load for outstanding acks and deliveries.") var drainSeconds: Double = 10
    @Option(help: "Seconds allowed for connecting, syncing and creating conversations.") var setupTimeoutSeconds: Double = 120
    @Option(help: "PID of the server: report its CPU and RSS from /proc.") var serverPid: Int32?
    @Option(help: "User-id prefix; the default is unique per run so runs on one database do not collide.") var prefix: String?
    @Option(help: ArgumentHelp(
        "Connect from 127.0.0.1 ... 127.0.0.N (1...254), connection i from 127.0.0.(1 + i % N).",
        discussion: "One source address holds as many connections to the server as the ephemeral port range has ports (about 28,000); 100,000 devices need 4 or more."))
    var sourceAddresses = 1
    @Flag(help: "No progress lines on stderr.") var quiet = false

    /// The servers given, or the default one.
    var servers: [String] { server.isEmpty ? ["ws://127.0.0.1:8080"] : server }

    /// The ports connections go round: each `--server`'s, in order.
    func ports() throws -> [Int] {
        try servers.map { try Self.port(of: $0) }
    }

    /// The first `--server`'s port; only 127.0.0.1 / localhost are accepted.
    func port() throws -> Int { try Self.port(of: servers[0]) }

    private static func port(of url: String) throws -> Int {
        guard let parsed = URL(string: url), parsed.scheme == "ws", let host = parsed.host, host == "127.0.0.1" || host == "localhost",
              let port = parsed.port, (1...65535).contains(port)
        else { throw ValidationError("--server must be ws://127.0.0.1:PORT (benchmarks stay on loopback)") }
        return port
    }

    func tokenSource() throws -> TokenSource {
        if let secret, !secret.isEmpty { return .secret(Array(secret.utf8)) }
        if let serverBin, let db { return .serverBinary(path: serverBin, db: db) }
        throw ValidationError("give --secret (the server's) or --server-bin and --db")
    }

    func userPrefix() -> String {
        if let prefix { return prefix }
        return "b\(getpid() % 100_000)x\(Int(Date().timeIntervalSince1970) % 100_000)"
    }
}
