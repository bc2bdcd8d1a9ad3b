import Foundation
import Glibc
import HeraldBytes
@testable import HeraldNet
import HeraldTLS
import HeraldTestSupport
import Synchronization
import Testing

/// HeraldNet's TLS filter against blocking HeraldTLS clients: the handler sees only plaintext, the loop
/// never blocks on a handshake, pending plaintext is drained, fan-out reaches TLS and plain peers alike.
/// Nested in the serialized ``ServerTests``.
extension ServerTests {
    @Suite("TLS transport")
    struct TLSTransportTests {
        let certificate: TestCertificate

        init() throws {
            certificate = try TestCertificate.shared.get()
        }

        /// An echo server on one loop (so "never blocks the loop" is about a single thread) serving TLS.
        func startTLSEchoServer(threads: Int = 1, options: HandlerOptions = HandlerOptions()) throws -> (TCPServer, ServerEvents, UInt16, ReloadableTLSContext) {
            let tls = try ReloadableTLSContext(certificateChainFile: certificate.certificateFile, privateKeyFile: certificate.keyFile)
            let events = ServerEvents()
            let config = ServerConfig(host: "127.0.0.1", port: 0, threads: threads, tickMilliseconds: 10, tls: tls)
            let server = try TCPServer(config: config) { EchoHandler($0, events: events, options: options) }
            try server.start()
            guard let port = server.boundPort else { throw ClientError(errno: 0, call: "boundPort") }
            return (server, events, port, tls)
        }

        @Test("RFC 8446 over the loop: handshake, and the handler reads and writes plaintext only")
        func echoOverTLS() throws {
            let (server, events, port, _) = try startTLSEchoServer()
            defer { #expect(stop(server)) }
            let client = try TLSTestClient(port: port, caFile: certificate.certificateFile)
            try client.send("hello, herald over tls")
            #expect(try client.receive(exactly: 22) == Array("hello, herald over tls".utf8))
            // The handler counted plaintext bytes, not ciphertext (which is at least 22 bytes larger per record).
            #expect(events.waitUntil { $0.bytesRead == 22 })
            #expect(client.engine.protocolVersion == "TLSv1.3" || client.engine.protocolVersion == "TLSv1.2")
        }

        @Test("1 MiB in 16 KiB records echoes intact: reads stop at one record per pass and the pending list drains the rest")
        func largeTransferUsesPendingReads() throws {
            let (server, _, port, _) = try startTLSEchoServer()
            defer { #expect(stop(server)) }
            let client = try TLSTestClient(port: port, caFile: certificate.certificateFile)
            var generator = SeededGenerator(seed: 11)
            let payload = (0..<(1 << 20)).map { _ in UInt8.random(in: 0...255, using: &generator) }
            // All records go out before we read anything: the server gets up to four records per socket read, decrypts one,
            // and must decrypt the rest without a new epoll event for the last ones.
            var ciphertext: [UInt8] = []
            try client.engine.write(payload, into: &ciphertext)
            let socket = client.socket, records = ciphertext
            let writer = Thread { try? socket.send(records) }
            writer.start()
            #expect(try client.receive(exactly: payload.count) == payload)
        }

        @Test("A peer that sends faster than the loop decrypts leaves its backlog in the kernel, not in OpenSSL (at most one read ahead)")
        func fastSenderIsHeldBackByTCP() throws {
            // The handler is slow (a loaded loop): each slice of plaintext costs it 0.3 ms, so 4 MiB arrive far faster than
            // they are handled. Each time it runs it notes how much ciphertext OpenSSL holds undecrypted.
            let mostHeld = Mutex(0)
            var options = HandlerOptions()
            options.echo = false
            options.onRead = { connection in
                if let held = connection.tls?.engine.unprocessedCiphertextBytes { mostHeld.withLock { $0 = max($0, held) } }
                usleep(300)
            }
            let (server, events, port, _) = try startTLSEchoServer(options: options)
            defer { #expect(stop(server)) }
            let client = try TLSTestClient(port: port, caFile: certificate.certificateFile)
            var ciphertext: [UInt8] = []
            try client.engine.write([UInt8](repeating: 0x61, count: 4 << 20), into: &ciphertext)
            let socket = client.socket, records = ciphertext
            let writer = Thread { try? socket.send(records) }
            writer.start()
            #expect(events.waitUntil(timeoutMilliseconds: 60_000) { $0.bytesRead == 4 << 20 })
            // One 64 KiB read plus the part of a record (< 17 KiB) left from the read before.
            #expect(mostHeld.withLock { $0 } <= 64 << 10 + 17 << 10)
        }

        @Test("A client that sends plaintext HTTP to the TLS port is dropped; the loop keeps serving a TLS client")
        func garbageIsDropped() throws {
            let (server, events, port, _) = try startTLSEchoServer()
            defer { #expect(stop(server)) }
            let good = try TLSTestClient(port: port, caFile: certificate.certificateFile)
            let garbage = try TestClient(port: port, receiveTimeoutSeconds: 5)
            try garbage.send("GET /echo HTTP/1.1\r\nHost: x\r\n\r\n")
            let answer = try garbage.receiveUntilClosed()  // at most a TLS alert, then EOF
            #expect(answer.count < 64)
            #expect(events.waitUntil { $0.closed.count == 1 })
            try good.send("still here")
            #expect(try good.receive(exactly: 10) == Array("still here".utf8))
        }

        @Test("A client that stops mid-handshake does not block the loop's other connections (one loop thread)")
        func stalledHandshakeDoesNotBlock() throws {
            let (server, events, port, _) = try startTLSEchoServer(threads: 1)
            defer { #expect(stop(server)) }
            // Half a ClientHello, then silence.
            let stalled = try TestClient(port: port)
            let engine = try TLSEngine(context: TLSContext.client(trust: .insecure), serverName: "localhost")
            var hello: [UInt8] = []
            try engine.start(into: &hello)
            try stalled.send(Array(hello.prefix(hello.count / 2)))
            #expect(events.waitUntil { $0.opened.count == 1 })
            let stalledHandle = try #require(events.read { $0.opened.first })
            for round in 0..<3 {
                let client = try TLSTestClient(port: port, caFile: certificate.certificateFile, receiveTimeoutSeconds: 3)
                try client.send("round \(round)")
                #expect(try client.receive(exactly: 7) == Array("round \(round)".utf8))
            }
            // Still open: HeraldNet has no handshake timer of its own; the engine's handshake timeout closes it.
            #expect(!events.read { $0.closed.contains(stalledHandle) })
        }

        @Test("Graceful close sends close_notify after the goodbye (RFC 8446 §6.1)")
        func closeNotifyOnShutdown() throws {
            let (server, _, port, _) = try startTLSEchoServer()
            let client = try TLSTestClient(port: port, caFile: certificate.certificateFile)
            try client.send("x")
            #expect(try client.receive(exactly: 1) == Array("x".utf8))
            server.shutdown(graceMilliseconds: 2000)
            let (plaintext, closeNotify) = try client.receiveUntilClosed()
            #expect(plaintext == Array("BYE".utf8))
            #expect(closeNotify)
            #expect(server.waitUntilStopped(timeoutMilliseconds: 5000))
        }

        @Test("Fan-out: one SharedBytes frame reaches plain and TLS connections of the same group (encrypted per TLS peer)")
        func fanOutToPlainAndTLS() throws {
            let tls = try ReloadableTLSContext(certificateChainFile: certificate.certificateFile, privateKeyFile: certificate.keyFile)
            let group = try LoopGroup(threads: 2, tickMilliseconds: 10)
            defer { group.shutdown() }
            let events = ServerEvents()
            let options = HandlerOptions(echo: false)
            let plain = TCPServer(config: ServerConfig(port: 0, threads: 2), group: group) { EchoHandler($0, events: events, options: options) }
            let secure = TCPServer(config: ServerConfig(port: 0, threads: 2, tls: tls), group: group) { EchoHandler($0, events: events, options: options) }
            try plain.start()
            try secure.start()
            defer {
                plain.shutdown(graceMilliseconds: 200)
                secure.shutdown(graceMilliseconds: 200)
                #expect(plain.waitUntilStopped(timeoutMilliseconds: 5000) && secure.waitUntilStopped(timeoutMilliseconds: 5000))
            }
            let plainClients = try (0..<3).map { _ in try TestClient(port: plain.boundPort ?? 0) }
            let tlsClients = try (0..<3).map { _ in try TLSTestClient(port: secure.boundPort ?? 0, caFile: certificate.certificateFile) }
            #expect(events.waitUntil { $0.opened.count == 6 })
            let message = Array(String(repeating: "broadcast ", count: 500).utf8)
            group.send(SharedBytes(message), to: events.read { $0.opened })
            for client in plainClients { #expect(try client.receive(exactly: message.count) == message) }
            for client in tlsClients { #expect(try client.receive(exactly: message.count) == message) }
        }

        @Test("ReloadableTLSContext.reload(): new connections get the new certificate, open ones keep working")
        func reloadKeepsConnections() throws {
            let directory = NSTemporaryDirectory() + "herald-net-reload-\(UUID().uuidString)"
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            let first = try TestCertificate.make(commonName: "first"), second = try TestCertificate.make(commonName: "second")
            let certificateFile = directory + "/cert.pem", keyFile = directory + "/key.pem"
            try FileManager.default.copyItem(atPath: first.certificateFile, toPath: certificateFile)
            try FileManager.default.copyItem(atPath: first.keyFile, toPath: keyFile)
            let tls = try ReloadableTLSContext(certificateChainFile: certificateFile, privateKeyFile: keyFile)
            let events = ServerEvents()
            let server = try TCPServer(config: ServerConfig(port: 0, threads: 1, tls: tls)) { EchoHandler($0, events: events, options: HandlerOptions()) }
            try server.start()
            defer { #expect(stop(server)) }
            let port = server.boundPort ?? 0
            let old = try TLSTestClient(port: port, caFile: first.certificateFile)
            #expect(old.engine.peerCertificateSubject == "/CN=first")

            for (source, target) in [(second.certificateFile, certificateFile), (second.keyFile, keyFile)] {
                try FileManager.default.removeItem(atPath: target)
                try FileManager.default.copyItem(atPath: source, toPath: target)
            }
            try tls.reload()
            let new = try TLSTestClient(port: port, caFile: second.certificateFile)
            #expect(new.engine.peerCertificateSubject == "/CN=second")
            try old.send("old")
            #expect(try old.receive(exactly: 3) == Array("old".utf8))
            #expect(events.read { $0.closed.isEmpty })
        }
    }
}
