import ArgumentParser
import Foundation

/// Options every scenario takes: where the server is, how to get tokens, and the run's bounds.
struct CommonOptions: ParsableArguments {
    @Option(help: "The server, ws://127.0.0.1:PORT (loopback only).") var url = "ws://127.0.0.1:8080"
    @Option(help: ArgumentHelp(
        "Another node on the same database, ws://127.0.0.1:PORT; repeat for more nodes.",
        discussion: "Device i connects to the (i % nodes)th of --url, then each --url2 in order: with one --url2, odd devices are there."))
    var url2: [String] = []
    @Option(help: "The server's --secret: mint HS256 tokens here (fast; unknown users are created on connect).") var secret: String?
    @Option(help: "Else: run `<server-bin> token <user> --db <db>` once per user (slow for many users).") var serverBin: String?
    @Option(help: "The server's database, for --server-bin.") var db: String?
    @Option(help: "Seconds of measured load.") var duration: Double = 10
    @Option(help: "Messages (fanout, chat, insert) or connects (connect) at most; the run also ends after --duration.")
    var count: Int?
    @Option(help: "Seconds to wait after the load for outstanding acks and deliveries.") var drain: Double = 10
    @Option(help: "Seconds allowed for connecting, syncing and creating conversations.") var setupTimeout: Double = 120
    @Option(help: "PID of the server: report its CPU and RSS from /proc.") var serverPid: Int32?
    @Option(help: "User-id prefix; the default is unique per run so runs on one database do not collide.") var prefix: String?
    @Option(help: ArgumentHelp(
        "Connect from 127.0.0.1 ... 127.0.0.N (1...254), connection i from 127.0.0.(1 + i % N).",
        discussion: "One source address holds as many connections to the server as the ephemeral port range has ports (about 28,000); 100,000 devices need 4 or more."))
    var sourceAddresses = 1
    @Flag(help: "No progress lines on stderr.") var quiet = false

    /// The ports connections go round: `--url`'s, then each `--url2`'s.
    func ports() throws -> [Int] {
        try [port()] + url2.map { try Self.port(of: $0) }
    }

    /// The port from `--url`; only 127.0.0.1 / localhost are accepted.
    func port() throws -> Int { try Self.port(of: url) }

    private static func port(of url: String) throws -> Int {
        guard let parsed = URL(string: url), parsed.scheme == "ws", let host = parsed.host, host == "127.0.0.1" || host == "localhost",
              let port = parsed.port, (1...65535).contains(port)
        else { throw ValidationError("--url must be ws://127.0.0.1:PORT (benchmarks stay on loopback)") }
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
