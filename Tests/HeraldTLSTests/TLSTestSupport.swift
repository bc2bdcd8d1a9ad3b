import Foundation
@testable import HeraldTLS
import Testing

/// A self-signed certificate for localhost/127.0.0.1 made by the `openssl` command in a temporary directory.
struct TestCertificate: Sendable {
    let directory: String
    let certificateFile: String
    let keyFile: String

    /// Runs `openssl req -x509 ...` with the given common name.
    static func make(commonName: String = "localhost", in directory: String? = nil, prefix: String = "server") throws -> TestCertificate {
        let directory = directory ?? NSTemporaryDirectory() + "herald-tls-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let certificate = directory + "/\(prefix)-cert.pem"
        let key = directory + "/\(prefix)-key.pem"
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=\(commonName)",
                             "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1", "-days", "2",
                             "-keyout", key, "-out", certificate]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw TestFailure("openssl req exited with \(process.terminationStatus)") }
        return TestCertificate(directory: directory, certificateFile: certificate, keyFile: key)
    }

    /// One certificate shared by the suite (RSA key generation is slow on a busy machine).
    static let shared: Result<TestCertificate, any Error> = Result { try make() }
}

struct TestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// A client engine and a server engine wired back to back in memory.
struct EnginePair {
    let client: TLSEngine
    let server: TLSEngine
    /// Plaintext each side has received so far.
    var clientReceived: [UInt8] = []
    var serverReceived: [UInt8] = []
    /// Ciphertext in flight.
    var toServer: [UInt8] = []
    var toClient: [UInt8] = []
    /// Bytes handed over per receive call (1 = byte by byte).
    let chunkSize: Int

    init(client: TLSContext, server: TLSContext, serverName: String? = "localhost", chunkSize: Int = .max) throws {
        self.client = try TLSEngine(context: client, serverName: serverName)
        self.server = try TLSEngine(context: server)
        self.chunkSize = chunkSize
        try self.client.start(into: &toServer)
    }

    /// Moves ciphertext both ways until neither side has anything to send. Errors propagate from either side.
    mutating func pump() throws(TLSError) {
        for _ in 0..<1_000_000 {
            if toServer.isEmpty && toClient.isEmpty { return }
            if !toServer.isEmpty {
                let piece = Array(toServer.prefix(chunkSize))
                toServer.removeFirst(piece.count)
                try server.receive(piece, plaintext: &serverReceived, output: &toClient)
            }
            if !toClient.isEmpty {
                let piece = Array(toClient.prefix(chunkSize))
                toClient.removeFirst(piece.count)
                try client.receive(piece, plaintext: &clientReceived, output: &toServer)
            }
        }
    }
}
