import Foundation
import Glibc
import HeraldTLS
import HeraldTestSupport
import Testing

/// `herald-server` with `--tls-cert/--tls-key/--tls-port`, as a user runs it: bad TLS clients cannot hurt anyone
/// else, a stalled handshake is covered by the handshake timeout, SIGHUP reloads the certificate without dropping
/// connections, and `--tls-port` serves ws:// and wss:// side by side.
@Suite("TLS: herald-server wss:// behaviour")
struct TLSServerTests {
    /// Completes a TLS handshake with the server (no verification) and returns the certificate subject it presented.
    static func presentedSubject(port: Int) throws -> String? {
        let socket = try RawWebSocketClient(port: port)
        let engine = try TLSEngine(context: TLSContext.client(trust: .insecure), serverName: "localhost")
        var output: [UInt8] = [], plaintext: [UInt8] = []
        try engine.start(into: &output)
        try socket.send(output)
        var buffer = [UInt8](repeating: 0, count: 16 << 10)
        while !engine.isHandshakeComplete {
            var descriptor = pollfd(fd: socket.fd, events: Int16(POLLIN), revents: 0)
            guard poll(&descriptor, 1, 5000) > 0 else { throw TLSTestError("handshake timed out") }
            let count = buffer.withUnsafeMutableBytes { recv(socket.fd, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { throw TLSTestError("closed during handshake") }
            output.removeAll()
            try engine.receive(Array(buffer[..<count]), plaintext: &plaintext, output: &output)
            if !output.isEmpty { try socket.send(output) }
        }
        return engine.peerCertificateSubject
    }

    @Test("Garbage on the TLS port (plain HTTP, a fake record, random bytes) is dropped; an open wss:// session keeps echoing")
    func garbageClientsAreDropped() throws {
        // The handshake timeout is far beyond the wait, so an EOF proves the bytes were refused, not timed out,
        // even on a loaded machine.
        try withTLSEchoServer(["--handshake-timeout-ms", "120000"]) { server, tunnel in
            let session = try RawWebSocketClient.connect(port: tunnel.port, timeoutMilliseconds: 30_000)
            var generator = SystemRandomNumberGenerator()
            // The random bytes start with a record header no TLS version has (type 0, version 0.x): a random first
            // byte could begin a record or an SSLv2-style hello whose length asks for more bytes, and a server that
            // waits for those is right to.
            let noise = [0x00, 0x00] + (0..<4094).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let garbage: [[UInt8]] = [
                Array("GET /echo HTTP/1.1\r\nHost: localhost\r\nUpgrade: websocket\r\n\r\n".utf8),
                [0x16, 0x03, 0x01, 0x00, 0x10] + Array(repeating: 0xAB, count: 16),
                noise,
            ]
            for bytes in garbage {
                let attacker = try RawWebSocketClient(port: server.port, timeoutMilliseconds: 30_000)
                try attacker.send(bytes)
                try attacker.waitForEOF()  // closed after at most an alert
                try session.sendText("still echoing")
                #expect(try session.readMessage().text == "still echoing")
            }
        }
    }

    @Test("A client that stops mid-handshake is closed by --handshake-timeout-ms; others are served meanwhile")
    func stalledHandshakeTimesOut() throws {
        try withTLSEchoServer(["--handshake-timeout-ms", "400", "--tick-ms", "20"]) { server, tunnel in
            let engine = try TLSEngine(context: TLSContext.client(trust: .insecure), serverName: "localhost")
            var hello: [UInt8] = []
            try engine.start(into: &hello)
            let stalled = try RawWebSocketClient(port: server.port, timeoutMilliseconds: 9000)
            try stalled.send(Array(hello.prefix(hello.count / 2)))
            let silent = try RawWebSocketClient(port: server.port, timeoutMilliseconds: 9000)
            let started = monotonicMilliseconds()
            let session = try RawWebSocketClient.connect(port: tunnel.port)
            try session.sendText("not blocked")
            #expect(try session.readMessage().text == "not blocked")
            try stalled.waitForEOF()
            try silent.waitForEOF()
            let elapsed = monotonicMilliseconds() - started
            // Well under the 10 s default, so it was the 400 ms option that closed them, with room for a loaded machine.
            #expect(elapsed < 8000, "stalled handshakes closed after \(elapsed) ms")
        }
    }

    @Test("SIGHUP reloads the certificate: new connections get the new one, an open wss:// session is not dropped")
    func sighupReloadsCertificate() throws {
        let directory = NSTemporaryDirectory() + "herald-reload-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let first = try ServerTestCertificate.make(commonName: "first"), second = try ServerTestCertificate.make(commonName: "second")
        let certificateFile = directory + "/cert.pem", keyFile = directory + "/key.pem"
        try FileManager.default.copyItem(atPath: first.certificateFile, toPath: certificateFile)
        try FileManager.default.copyItem(atPath: first.keyFile, toPath: keyFile)
        let server = try ServerHarness.start(["--bench-endpoints", "--tls-cert", certificateFile, "--tls-key", keyFile])
        defer { server.stop() }
        #expect(try Self.presentedSubject(port: server.port) == "/CN=first")
        let tunnel = try TLSTunnel(targetPort: server.port, caFile: first.certificateFile)
        let session = try RawWebSocketClient.connect(port: tunnel.port)

        for (source, target) in [(second.certificateFile, certificateFile), (second.keyFile, keyFile)] {
            try FileManager.default.removeItem(atPath: target)
            try FileManager.default.copyItem(atPath: source, toPath: target)
        }
        server.send(signal: SIGHUP)
        var subject = try Self.presentedSubject(port: server.port)
        let deadline = monotonicMilliseconds() + 3000
        while subject != "/CN=second", monotonicMilliseconds() < deadline {
            usleep(50_000)
            subject = try Self.presentedSubject(port: server.port)
        }
        #expect(subject == "/CN=second")
        #expect(server.isRunning)
        try session.sendText("same session after reload")
        #expect(try session.readMessage().text == "same session after reload")
    }

    @Test("--tls-port serves wss:// there and ws:// on --port; TLS clients are refused below TLS 1.2")
    func plainAndTLSPorts() throws {
        let certificate = try ServerTestCertificate.shared.get()
        let server = try ServerHarness.start(["--bench-endpoints", "--tls-port", "0"] + certificate.serverArguments)
        defer { server.stop() }
        let line = try #require(server.standardOutput.split(separator: "\n").first { $0.hasPrefix("herald-server tls listening on ") })
        let tlsPort = try #require(line.split(separator: ":").last.flatMap { Int($0) })
        #expect(tlsPort != server.port)

        let plain = try RawWebSocketClient.connect(port: server.port)
        try plain.sendText("plain")
        #expect(try plain.readMessage().text == "plain")
        let tunnel = try TLSTunnel(targetPort: tlsPort, caFile: certificate.certificateFile)
        let secure = try RawWebSocketClient.connect(port: tunnel.port)
        try secure.sendText("secure")
        #expect(try secure.readMessage().text == "secure")

        // TLS 1.1 only: the server's TLS 1.2 floor refuses the handshake.
        let old = try RawWebSocketClient(port: tlsPort, timeoutMilliseconds: 3000)
        let engine = try TLSEngine(context: TLSContext.client(trust: .insecure, minimumVersion: .tls11, maximumVersion: .tls11))
        var hello: [UInt8] = [], plaintext: [UInt8] = [], ignored: [UInt8] = []
        try engine.start(into: &hello)
        try old.send(hello)
        var refused = false
        var buffer = [UInt8](repeating: 0, count: 4096)
        while !refused {
            var descriptor = pollfd(fd: old.fd, events: Int16(POLLIN), revents: 0)
            guard poll(&descriptor, 1, 3000) > 0 else { break }
            let count = buffer.withUnsafeMutableBytes { recv(old.fd, $0.baseAddress, $0.count, 0) }
            if count <= 0 { refused = true; break }
            do { try engine.receive(Array(buffer[..<count]), plaintext: &plaintext, output: &ignored) } catch { refused = true }
        }
        #expect(refused && !engine.isHandshakeComplete)
    }
}
