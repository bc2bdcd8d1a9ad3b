import Foundation
import Glibc
import HeraldTLS

/// A self-signed certificate for localhost/127.0.0.1, made by the `openssl` command at test time.
struct TestCertificate: Sendable {
    let certificateFile: String
    let keyFile: String

    /// Runs `openssl req -x509` with `commonName` into a fresh temporary directory.
    static func make(commonName: String = "localhost") throws -> TestCertificate {
        let directory = NSTemporaryDirectory() + "herald-net-tls-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let certificate = directory + "/cert.pem", key = directory + "/key.pem"
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                             "-subj", "/CN=\(commonName)", "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1", "-days", "2",
                             "-keyout", key, "-out", certificate]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw ClientError(errno: process.terminationStatus, call: "openssl req") }
        return TestCertificate(certificateFile: certificate, keyFile: key)
    }

    /// One certificate for the whole suite.
    static let shared: Result<TestCertificate, any Error> = Result { try make() }
}

/// A blocking TLS client: ``TestClient``'s socket with a HeraldTLS client engine on top, verifying the server's
/// certificate against `caFile`. Every read has the socket's receive timeout.
final class TLSTestClient {
    let socket: TestClient
    let engine: TLSEngine
    /// Decrypted bytes not yet consumed.
    private(set) var received: [UInt8] = []

    /// Connects and completes the handshake.
    init(port: UInt16, caFile: String, receiveTimeoutSeconds: Int = 10) throws {
        socket = try TestClient(port: port, receiveTimeoutSeconds: receiveTimeoutSeconds)
        engine = try TLSEngine(context: TLSContext.client(trust: .caFile(caFile)), serverName: "localhost")
        var hello: [UInt8] = []
        try engine.start(into: &hello)
        try socket.send(hello)
        while !engine.isHandshakeComplete {
            guard try pump() else { throw ClientError(errno: 0, call: "TLS handshake (EOF)") }
        }
    }

    /// Reads once from the socket and feeds the engine; false on EOF.
    @discardableResult
    func pump() throws -> Bool {
        let chunk = try socket.receiveSome()
        if chunk.isEmpty { return false }
        var output: [UInt8] = []
        try engine.receive(chunk, plaintext: &received, output: &output)
        if !output.isEmpty { try socket.send(output) }
        return true
    }

    func send(_ bytes: [UInt8]) throws {
        var output: [UInt8] = []
        try engine.write(bytes, into: &output)
        try socket.send(output)
    }

    func send(_ text: String) throws { try send(Array(text.utf8)) }

    func receive(exactly count: Int) throws -> [UInt8] {
        while received.count < count {
            guard try pump() else { throw ClientError(errno: 0, call: "recv (EOF after \(received.count) plaintext bytes)") }
        }
        defer { received.removeFirst(count) }
        return Array(received.prefix(count))
    }

    /// Reads until EOF; returns the plaintext that arrived and whether the server sent close_notify first.
    func receiveUntilClosed() throws -> (plaintext: [UInt8], closeNotify: Bool) {
        while try pump() {}
        defer { received.removeAll() }
        return (received, engine.hasReceivedCloseNotify)
    }
}
