import Foundation
import Glibc

/// Debian's haproxy in front of several `herald-server` nodes on loopback, as a deployment puts a load balancer in
/// front of its nodes: clients know one address, and a node that dies is replaced by a live one at their next connect.
///
/// The configuration is ``configuration(port:backends:)``, the same one `.dev/cluster` writes: HTTP mode (the
/// WebSocket upgrade passes through, and the connection then becomes a tunnel), round robin, `GET /healthz` checks
/// every 500 ms, and a refused connect redispatched to another node (`option redispatch`, `retries`), so a device
/// whose node was just killed reaches a live one even before the checks have marked the dead one down. Tunnel
/// timeouts are long: an idle /sync connection is not a dead one.
///
/// ```swift
/// let front = try HAProxyFront(backends: nodes.nodes.map(\.port))
/// let client = try ClientProcess.start(port: front.port, token: token)
/// ```
public final class HAProxyFront: @unchecked Sendable {
    // @unchecked: immutable after init; ChildProcess is thread-safe.

    /// Where Debian's haproxy package puts the binary (override with HERALD_HAPROXY).
    public static let binary = ProcessInfo.processInfo.environment["HERALD_HAPROXY"] ?? "/usr/sbin/haproxy"

    /// The port clients connect to.
    public let port: Int
    /// The nodes' ports, in the configuration's order.
    public let backends: [Int]
    private let process: ChildProcess
    private let directory: URL

    /// Why haproxy could not be started; carries its own words.
    public struct FrontError: Error, CustomStringConvertible {
        public var description: String
        init(_ description: String) { self.description = description }
    }

    /// Starts haproxy on a free loopback port in front of `backends` and waits until it accepts connections.
    public init(backends: [Int]) throws {
        guard FileManager.default.isExecutableFile(atPath: Self.binary) else {
            throw FrontError("haproxy not found at \(Self.binary): apt-get install haproxy (or set HERALD_HAPROXY)")
        }
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("herald-haproxy-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        self.backends = backends
        // The free port is found by binding port 0 and closing it; another process may take it before haproxy
        // binds, so a failed start is tried again on another port.
        var lastError: any Error = FrontError("not started")
        for _ in 0..<3 {
            do {
                (port, process) = try Self.start(backends: backends, directory: directory)
                return
            } catch {
                lastError = error
            }
        }
        try? FileManager.default.removeItem(at: directory)
        throw lastError
    }

    deinit { stop() }

    /// Stops haproxy (SIGTERM: it closes every client connection) and deletes its files.
    public func stop() {
        process.send(signal: SIGTERM)
        _ = process.waitForExitOrKill(timeout: .seconds(5))
        try? FileManager.default.removeItem(at: directory)
    }

    /// The `ws://` URL clients connect to.
    public var url: String { "ws://127.0.0.1:\(port)" }

    /// haproxy's configuration for `port` in front of `backends` (loopback ports). `maxConnections` is haproxy's
    /// `maxconn`: it refuses to start when it cannot get two descriptors per connection (this machine's hard limit is
    /// 20,000), and a test needs few.
    public static func configuration(port: Int, backends: [Int], maxConnections: Int = 2_000) -> String {
        let servers = backends.enumerated().map { "    server node\($0.offset) 127.0.0.1:\($0.element)" }.joined(separator: "\n")
        return """
            global
                maxconn \(maxConnections)
            defaults
                mode http
                timeout connect 1s
                # A /sync connection is idle between messages; once upgraded it is a tunnel, timed by `timeout tunnel`.
                timeout client 1h
                timeout server 1h
                timeout tunnel 1h
                timeout client-fin 5s
                timeout http-request 10s
                # A node starved of CPU on a loaded machine answers its check late, not never.
                timeout check 2s
                # A connect refused by a node that just died is tried again on another node.
                retries 3
                option redispatch 1
            frontend herald
                bind 127.0.0.1:\(port)
                default_backend nodes
            backend nodes
                balance roundrobin
                option httpchk GET /healthz
                # A node whose checks fail is marked down within about 1.5 s, and its remaining connections are cut so
                # that its devices reconnect to a live node instead of waiting on a half-open one.
                default-server check inter 500ms fall 3 rise 2 on-marked-down shutdown-sessions
            \(servers)

            """
    }

    private static func start(backends: [Int], directory: URL) throws -> (Int, ChildProcess) {
        let port = try freePort()
        let config = directory.appendingPathComponent("haproxy.cfg").path
        try configuration(port: port, backends: backends).write(toFile: config, atomically: true, encoding: .utf8)
        let log = directory.appendingPathComponent("haproxy.log").path
        // -db: stay in the foreground, so the process is ours to stop; -W (master-worker) is not used.
        let child = try ChildProcess(binary, ["-db", "-f", config], output: .file(log), error: .file(log))
        let deadline = ContinuousClock.now + .seconds(10)
        while ContinuousClock.now < deadline {
            guard child.isRunning else {
                let said = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
                throw FrontError("haproxy exited on port \(port): \(said.suffix(1_000))")
            }
            if accepts(port) { return (port, child) }
            usleep(20_000)
        }
        _ = child.waitForExitOrKill(timeout: .zero)
        throw FrontError("haproxy did not listen on port \(port) within 10 s")
    }

    /// Whether something accepts a TCP connection on 127.0.0.1:`port`.
    private static func accepts(_ port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = loopback(port)
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
    }

    private static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw FrontError("socket failed: errno \(errno)") }
        defer { close(fd) }
        var address = loopback(0)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        guard bound else { throw FrontError("bind failed: errno \(errno)") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    private static func loopback(_ port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(truncatingIfNeeded: port).bigEndian
        return address
    }
}
