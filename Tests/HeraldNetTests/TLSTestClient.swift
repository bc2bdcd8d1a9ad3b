import Foundation
import Glibc
import HeraldTLS
import HeraldTestSupport

/// The self-signed test certificate (one definition, in HeraldTestSupport).
typealias TestCertificate = SelfSignedCertificate

extension SelfSignedCertificate {
    /// One certificate for every TLS test of the target.
    static let shared: Result<SelfSignedCertificate, any Error> = Result { try make() }
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
