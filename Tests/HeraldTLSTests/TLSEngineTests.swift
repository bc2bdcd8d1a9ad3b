import Foundation
import HeraldTLS
import Testing

@Suite("TLS engine: handshake and data in memory")
struct TLSEngineTests {
    let certificate: TestCertificate
    let serverContext: TLSContext
    let trustingClient: TLSContext

    init() throws {
        certificate = try TestCertificate.shared.get()
        serverContext = try TLSContext.server(certificateChainFile: certificate.certificateFile, privateKeyFile: certificate.keyFile)
        trustingClient = try TLSContext.client(trust: .caFile(certificate.certificateFile))
    }

    @Test("Handshake completes and data flows both ways, whole or 1/7/1000 bytes at a time", arguments: [Int.max, 1, 7, 1000])
    func handshakeAndData(_ chunkSize: Int) throws {
        var pair = try EnginePair(client: trustingClient, server: serverContext, chunkSize: chunkSize)
        try pair.pump()
        #expect(pair.client.isHandshakeComplete && pair.server.isHandshakeComplete)
        #expect(pair.client.protocolVersion == "TLSv1.3")
        #expect(pair.client.peerCertificateSubject == "/CN=localhost")
        #expect(pair.server.serverName == "localhost")  // SNI was sent

        let request = Array("GET /sync HTTP/1.1\r\nHost: localhost\r\n\r\n".utf8)
        let response = (0..<(chunkSize == 1 ? 5_000 : 100_000)).map { UInt8(truncatingIfNeeded: $0 * 31) }
        try pair.client.write(request, into: &pair.toServer)
        try pair.pump()
        #expect(pair.serverReceived == request)
        try pair.server.write(response, into: &pair.toClient)
        try pair.pump()
        #expect(pair.clientReceived == response)
    }

    @Test("TLS 1.2 when the client offers nothing newer")
    func tls12() throws {
        let client = try TLSContext.client(trust: .caFile(certificate.certificateFile), maximumVersion: .tls12)
        var pair = try EnginePair(client: client, server: serverContext)
        try pair.pump()
        #expect(pair.server.protocolVersion == "TLSv1.2")
        try pair.server.write(Array("hi".utf8), into: &pair.toClient)
        try pair.pump()
        #expect(pair.clientReceived == Array("hi".utf8))
    }

    @Test("Writes before the handshake completes are kept and sent afterwards (write wants read)")
    func writeBeforeHandshake() throws {
        var pair = try EnginePair(client: trustingClient, server: serverContext)
        try pair.client.write(Array("early".utf8), into: &pair.toServer)
        #expect(pair.client.isWriteWaitingForRead)
        try pair.pump()
        #expect(!pair.client.isWriteWaitingForRead)
        #expect(pair.serverReceived == Array("early".utf8))
    }

    @Test("Pending plaintext: a receive capped by maxPlaintext leaves the rest to drain without new bytes")
    func pendingPlaintext() throws {
        var pair = try EnginePair(client: trustingClient, server: serverContext)
        try pair.pump()
        let message = [UInt8](repeating: 0x61, count: 100_000)
        try pair.server.write(message, into: &pair.toClient)
        var received: [UInt8] = []
        var toServer: [UInt8] = []
        try pair.client.receive(pair.toClient, plaintext: &received, output: &toServer, maxPlaintext: 16 << 10)
        #expect(received.count < message.count)
        #expect(pair.client.hasPendingPlaintext)
        var rounds = 0
        while pair.client.hasPendingPlaintext && rounds < 100 {
            try pair.client.receive([], plaintext: &received, output: &toServer, maxPlaintext: 16 << 10)
            rounds += 1
        }
        #expect(received == message)
        #expect(!pair.client.hasPendingPlaintext)
    }

    @Test("close_notify reaches the peer; writing after close fails with .closed")
    func closeNotify() throws {
        var pair = try EnginePair(client: trustingClient, server: serverContext)
        try pair.pump()
        pair.client.close(into: &pair.toServer)
        #expect(!pair.toServer.isEmpty)
        try pair.pump()
        #expect(pair.server.hasReceivedCloseNotify)
        #expect(throws: TLSError.self) { try pair.client.write(Array("late".utf8), into: &pair.toServer) }
        do {
            try pair.client.write(Array("late".utf8), into: &pair.toServer)
        } catch {
            #expect(error.kind == .closed)
        }
    }
}

@Suite("TLS trust and refusal")
struct TLSTrustTests {
    let certificate: TestCertificate
    let serverContext: TLSContext

    init() throws {
        certificate = try TestCertificate.shared.get()
        serverContext = try TLSContext.server(certificateChainFile: certificate.certificateFile, privateKeyFile: certificate.keyFile)
    }

    @Test("System trust refuses a self-signed certificate, with OpenSSL's reason")
    func untrustedRefused() throws {
        var pair = try EnginePair(client: try TLSContext.client(trust: .system), server: serverContext)
        let error = try #require(throws: TLSError.self) { try pair.pump() }
        #expect(error.kind == .handshake)
        #expect(error.detail.contains("certificate verify failed"), "\(error)")
        #expect(error.detail.contains("self-signed"), "\(error)")
        #expect(!pair.client.isHandshakeComplete)
        // Failed stays failed.
        #expect(throws: TLSError.self) { try pair.client.write(Array("x".utf8), into: &pair.toServer) }
    }

    @Test("caFile trust checks the name: a certificate for localhost does not pass for another host")
    func nameMismatchRefused() throws {
        var pair = try EnginePair(client: try TLSContext.client(trust: .caFile(certificate.certificateFile)), server: serverContext,
                                  serverName: "herald.example")
        let error = try #require(throws: TLSError.self) { try pair.pump() }
        #expect(error.detail.contains("hostname mismatch"), "\(error)")
    }

    @Test("An IP address is checked against the IP SAN and not sent as SNI (RFC 6066 §3)")
    func ipAddressName() throws {
        var pair = try EnginePair(client: try TLSContext.client(trust: .caFile(certificate.certificateFile)), server: serverContext,
                                  serverName: "127.0.0.1")
        try pair.pump()
        #expect(pair.client.isHandshakeComplete)
        #expect(pair.server.serverName == nil)
    }

    @Test("Insecure trust accepts the self-signed certificate under any name")
    func insecureAccepts() throws {
        var pair = try EnginePair(client: try TLSContext.client(trust: .insecure), server: serverContext, serverName: "herald.example")
        try pair.pump()
        #expect(pair.client.isHandshakeComplete && pair.server.isHandshakeComplete)
    }

    @Test("Garbage into the server engine is an error, not a crash, and the engine stays failed")
    func garbageIntoServer() throws {
        let server = try TLSEngine(context: serverContext)
        var plaintext: [UInt8] = []
        var output: [UInt8] = []
        let garbage = Array("GET / HTTP/1.1\r\nHost: x\r\n\r\n".utf8) + (0..<2000).map { UInt8(truncatingIfNeeded: $0 &* 97) }
        let error = try #require(throws: TLSError.self) { try server.receive(garbage, plaintext: &plaintext, output: &output) }
        #expect(error.kind == .handshake)
        #expect(plaintext.isEmpty)
        #expect(throws: TLSError.self) { try server.receive([0x16, 0x03, 0x01], plaintext: &plaintext, output: &output) }
    }

    @Test("Seeded random bytes in random chunks never trap the server engine", arguments: 0..<8)
    func randomBytesIntoServer(_ seed: Int) throws {
        var generator = SplitMix64(seed: UInt64(seed))
        let server = try TLSEngine(context: serverContext)
        var plaintext: [UInt8] = []
        var output: [UInt8] = []
        // Start with a plausible handshake record header so some inputs get past the first checks.
        var input: [UInt8] = seed.isMultiple(of: 2) ? [0x16, 0x03, 0x01, 0x02, 0x00, 0x01] : []
        input += (0..<4096).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
        var failures = 0
        var offset = 0
        while offset < input.count {
            let step = Int(generator.next() % 300) + 1
            let piece = Array(input[offset..<min(offset + step, input.count)])
            offset += step
            do { try server.receive(piece, plaintext: &plaintext, output: &output) } catch { failures += 1 }
        }
        #expect(failures > 0)
        #expect(plaintext.isEmpty)
    }
}

/// A tiny deterministic generator for the seeded test.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
