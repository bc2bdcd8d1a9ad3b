import Foundation
import Glibc
import HeraldTLS
import HeraldTestSupport
import Testing

/// The self-signed test certificate (one definition, in HeraldTestSupport).
typealias ServerTestCertificate = SelfSignedCertificate

extension SelfSignedCertificate {
    /// One certificate for every TLS test of the target.
    static let shared: Result<SelfSignedCertificate, any Error> = Result { try make() }
}

/// Monotonic milliseconds, for deadlines in tests.
func monotonicMilliseconds() -> Int64 {
    var spec = timespec()
    clock_gettime(CLOCK_MONOTONIC, &spec)
    return Int64(spec.tv_sec) * 1000 + Int64(spec.tv_nsec) / 1_000_000
}

struct TLSTestError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// A plaintext-to-TLS relay, so every ``RawWebSocketClient`` test can run over `wss://` unchanged.
///
/// The raw client connects to ``port`` in the clear; each accepted connection gets its own thread that opens a TLS
/// connection to the server (HeraldTLS client engine on a blocking socket, verifying the test certificate for
/// `localhost`) and moves bytes both ways. Every raw-client write becomes its own TLS record, so byte-at-a-time and
/// chunked tests also split the server's TLS input. When the server closes, the relay half-closes the plain side, so
/// the raw client sees the close frame and then EOF exactly as over plain TCP.
final class TLSTunnel: @unchecked Sendable {
    // @unchecked: `listenFD` and `port` are immutable; relay threads own their descriptors.
    /// The plaintext port to connect the raw client to.
    let port: Int
    private let listenFD: Int32

    init(targetPort: Int, caFile: String) throws {
        let context = try TLSContext.client(trust: .caFile(caFile))
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw TLSTestError("socket: errno \(errno)") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && listen(fd, 64) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        guard bound else {
            Glibc.close(fd)
            throw TLSTestError("bind/listen: errno \(errno)")
        }
        listenFD = fd
        port = Int(UInt16(bigEndian: address.sin_port))
        Thread.detachNewThread {
            while true {
                let client = accept(fd, nil, nil)
                if client < 0 {
                    if errno == EINTR || errno == ECONNABORTED { continue }
                    return  // the listener was shut down
                }
                Thread.detachNewThread { Self.relay(plain: client, targetPort: targetPort, context: context) }
            }
        }
    }

    deinit {
        shutdown(listenFD, Int32(SHUT_RDWR))
        Glibc.close(listenFD)
    }

    private static func relay(plain: Int32, targetPort: Int, context: TLSContext) {
        defer { Glibc.close(plain) }
        guard let secure = try? RawWebSocketClient(port: targetPort, timeoutMilliseconds: 10_000) else { return }
        guard let engine = try? TLSEngine(context: context, serverName: "localhost") else { return }
        var toServer: [UInt8] = []
        guard (try? engine.start(into: &toServer)) != nil, sendAll(secure.fd, toServer) else { return }
        var buffer = [UInt8](repeating: 0, count: 64 << 10)
        var plainOpen = true
        while true {
            var fds = [pollfd(fd: plain, events: plainOpen ? Int16(POLLIN) : 0, revents: 0), pollfd(fd: secure.fd, events: Int16(POLLIN), revents: 0)]
            let ready = poll(&fds, 2, 30_000)
            if ready < 0, errno == EINTR { continue }
            if ready <= 0 { return }
            if plainOpen, fds[0].revents != 0 {
                let count = buffer.withUnsafeMutableBytes { recv(plain, $0.baseAddress, $0.count, 0) }
                toServer.removeAll(keepingCapacity: true)
                if count <= 0 {
                    plainOpen = false
                    engine.close(into: &toServer)
                    _ = sendAll(secure.fd, toServer)
                    shutdown(secure.fd, Int32(SHUT_WR))
                } else {
                    let written = buffer.withUnsafeBytes { bytes in
                        (try? engine.write(UnsafeRawBufferPointer(rebasing: bytes[..<count]), into: &toServer)) != nil
                    }
                    guard written, sendAll(secure.fd, toServer) else { return }
                }
            }
            if fds[1].revents != 0 {
                let count = buffer.withUnsafeMutableBytes { recv(secure.fd, $0.baseAddress, $0.count, 0) }
                if count <= 0 {
                    // The server closed: FIN to the raw client, then wait for it to hang up (closing at once could RST
                    // away bytes it has not read yet).
                    shutdown(plain, Int32(SHUT_WR))
                    drainUntilClosed(plain)
                    return
                }
                var plaintext: [UInt8] = []
                toServer.removeAll(keepingCapacity: true)
                let failed = buffer.withUnsafeBytes { bytes in
                    (try? engine.receive(UnsafeRawBufferPointer(rebasing: bytes[..<count]), plaintext: &plaintext, output: &toServer)) == nil
                }
                _ = sendAll(secure.fd, toServer)
                guard sendAll(plain, plaintext), !failed else { return }
            }
        }
    }

    private static func drainUntilClosed(_ fd: Int32) {
        var scratch = [UInt8](repeating: 0, count: 4096)
        while true {
            var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&descriptor, 1, 5_000) > 0 else { return }
            if scratch.withUnsafeMutableBytes({ recv(fd, $0.baseAddress, $0.count, 0) }) <= 0 { return }
        }
    }

    private static func sendAll(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes.withUnsafeBytes { send(fd, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL)) }
            if sent < 0 {
                if errno == EINTR { continue }
                return false
            }
            offset += sent
        }
        return true
    }
}

/// Like `withEchoServer`, over TLS: a `herald-server --bench-endpoints --tls-cert … --tls-key …` and a ``TLSTunnel`` to it.
/// Afterwards checks the server survived and a new wss:// connection still echoes.
func withTLSEchoServer(_ arguments: [String] = [], _ body: (ServerHarness, TLSTunnel) throws -> Void) throws {
    let certificate = try ServerTestCertificate.shared.get()
    let server = try ServerHarness.start(["--bench-endpoints"] + certificate.serverArguments + arguments)
    defer { server.stop() }
    let tunnel = try TLSTunnel(targetPort: server.port, caFile: certificate.certificateFile)
    try body(server, tunnel)
    try expectStillServingTLS(server, tunnel)
}

/// The server is alive and a new wss:// connection to /echo round-trips a message.
func expectStillServingTLS(_ server: ServerHarness, _ tunnel: TLSTunnel, sourceLocation: SourceLocation = #_sourceLocation) throws {
    #expect(server.isRunning, "server died: \(server.standardError)", sourceLocation: sourceLocation)
    let probe = try RawWebSocketClient.connect(port: tunnel.port, path: "/echo")
    try probe.sendText("still there over tls?")
    #expect(try probe.readMessage().text == "still there over tls?", sourceLocation: sourceLocation)
}
