import Foundation
import Glibc
import HeraldTestSupport
import Testing

/// Certificates made by the `openssl` command at test time: a private CA and a server certificate it signed, and a
/// self-signed one. P-256 keys (fast to generate); names localhost and 127.0.0.1 unless told otherwise.
struct ClientTestCertificates: Sendable {
    let directory: String
    /// The private CA (for `--ca-file`).
    let caFile: String
    /// Signed by the CA, SAN DNS:localhost, IP:127.0.0.1.
    let signedCertificate: String
    let signedKey: String
    /// Signed by the CA, SAN DNS:localhost only (no IP: a client connecting to 127.0.0.1 must refuse it).
    let localhostOnlyCertificate: String
    let localhostOnlyKey: String
    /// Self-signed, SAN DNS:localhost, IP:127.0.0.1.
    let selfSignedCertificate: String
    let selfSignedKey: String

    static func make() throws -> ClientTestCertificates {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("herald-client-tls-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        func path(_ name: String) -> String { directory + "/" + name }
        let key = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
        try openssl(["req", "-x509"] + key + ["-subj", "/CN=Herald Test CA", "-days", "2", "-keyout", path("ca.key"), "-out", path("ca.pem")])
        try openssl(["req", "-x509"] + key + ["-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1", "-days", "2",
                                              "-keyout", path("self.key"), "-out", path("self.pem")])
        for (name, san) in [("signed", "DNS:localhost,IP:127.0.0.1"), ("localhost", "DNS:localhost")] {
            try openssl(["req"] + key + ["-subj", "/CN=localhost", "-keyout", path("\(name).key"), "-out", path("\(name).csr")])
            try "subjectAltName=\(san)\n".write(toFile: path("\(name).ext"), atomically: true, encoding: .utf8)
            try openssl(["x509", "-req", "-in", path("\(name).csr"), "-CA", path("ca.pem"), "-CAkey", path("ca.key"), "-CAcreateserial",
                         "-days", "2", "-extfile", path("\(name).ext"), "-out", path("\(name).pem")])
        }
        return ClientTestCertificates(
            directory: directory, caFile: path("ca.pem"), signedCertificate: path("signed.pem"), signedKey: path("signed.key"),
            localhostOnlyCertificate: path("localhost.pem"), localhostOnlyKey: path("localhost.key"),
            selfSignedCertificate: path("self.pem"), selfSignedKey: path("self.key"))
    }

    private static func openssl(_ arguments: [String]) throws {
        let result = try runToCompletion("/usr/bin/openssl", arguments, timeout: .seconds(30))
        guard result.status == 0 else { throw ProcessHarnessError("openssl \(arguments.first ?? "") failed: \(result.standardError)") }
    }

    /// One set for the whole suite.
    static let shared: Result<ClientTestCertificates, any Error> = Result { try make() }
}

/// `herald --server wss://…` over TLS (HeraldTLS between the socket and the WebSocket in the poll loop),
/// with permessage-deflate negotiated on top. Real `herald-server --tls-cert/--tls-key` and real `herald` processes.
@Suite("herald over wss:// (TLS) and permessage-deflate", .serialized)
struct ClientTLSTests {
    /// A TLS server with the given certificate, and a `herald --script` for `user` over wss:// with `arguments`.
    static func tlsServer(certificate: String, key: String) throws -> TestServer {
        try TestServer(pushGrace: 0, arguments: ["--tls-cert", certificate, "--tls-key", key, "--sync-send-rate", "0"])
    }

    static func client(_ server: TestServer, _ user: String, _ arguments: [String], host: String = "127.0.0.1") throws -> ClientProcess {
        try ClientProcess.launch(["--server", "wss://\(host):\(server.port)", "--token", try server.token(user), "--script"] + arguments, name: user)
    }

    /// dm, then a long (compressible) and a short message from `sender` reach `receiver` exactly, once each.
    static func roundTrip(_ sender: ClientProcess, _ receiver: ClientProcess, receiverName: String) throws {
        let conversation = try #require(try sender.ok("dm \(receiverName)").string("conversation"))
        try receiver.waitEvent("conversation") { $0.string("conversation") == conversation }
        let mark = receiver.mark
        let long = String(repeating: "compressible herald text over tls ", count: 40) + "end"
        try sender.ok("send \(conversation) \(long)")
        try sender.ok("send \(conversation) short")
        try receiver.waitEvent("message", after: mark) { $0.string("text") == "short" }
        let texts = receiver.events("message", after: mark).compactMap { $0.string("text") }
        #expect(texts == [long, "short"], "both messages arrive intact, once, in order")
    }

    @Test("--ca-file with a private CA: wss:// connects (TLS 1.2+), permessage-deflate is negotiated, and messages round-trip both ways")
    func privateCAWithCompression() throws {
        let certificates = try ClientTestCertificates.shared.get()
        let server = try Self.tlsServer(certificate: certificates.signedCertificate, key: certificates.signedKey)
        let alice = try Self.client(server, "alice", ["--ca-file", certificates.caFile])
        let bob = try Self.client(server, "bob", ["--ca-file", certificates.caFile])
        try alice.waitConnected()
        try bob.waitConnected()
        try Self.roundTrip(alice, bob, receiverName: "bob")
        try Self.roundTrip(bob, alice, receiverName: "alice")
        #expect(try alice.state().bool("connected") == true)
        for client in [alice, bob] {
            let summary = client.stderrLines.first { $0.contains("connected to wss://127.0.0.1:\(server.port)") } ?? ""
            #expect(summary.contains("TLSv1.2") || summary.contains("TLSv1.3"), "TLS version in: \(client.stderrText)")
            #expect(summary.contains("permessage-deflate"), "RFC 7692 negotiated: \(client.stderrText)")
            #expect(client.quit() == 0)
        }
        #expect(server.isRunning)
    }

    @Test("--insecure accepts a self-signed certificate; --no-compression offers no extension and still works")
    func insecureAndNoCompression() throws {
        let certificates = try ClientTestCertificates.shared.get()
        let server = try Self.tlsServer(certificate: certificates.selfSignedCertificate, key: certificates.selfSignedKey)
        let alice = try Self.client(server, "alice", ["--insecure"])
        let bob = try Self.client(server, "bob", ["--insecure", "--no-compression"])
        try alice.waitConnected()
        try bob.waitConnected()
        try Self.roundTrip(alice, bob, receiverName: "bob")
        try Self.roundTrip(bob, alice, receiverName: "alice")
        #expect(alice.stderrLines.contains { $0.contains("connected to wss://") && $0.contains("permessage-deflate") }, "\(alice.stderrText)")
        #expect(bob.stderrLines.contains { $0.contains("connected to wss://") && $0.contains("no compression") }, "\(bob.stderrText)")
        #expect(alice.quit() == 0)
        #expect(bob.quit() == 0)
    }

    @Test("client-script.md exit 4: a certificate the client cannot trust fails at start with one stderr line naming the certificate problem", arguments: [
        "system trust, self-signed", "private CA, certificate without the IP",
    ])
    func untrustedCertificate(_ scenario: String) throws {
        let certificates = try ClientTestCertificates.shared.get()
        let selfSigned = scenario.hasPrefix("system")
        let server = try selfSigned
            ? Self.tlsServer(certificate: certificates.selfSignedCertificate, key: certificates.selfSignedKey)
            : Self.tlsServer(certificate: certificates.localhostOnlyCertificate, key: certificates.localhostOnlyKey)
        let client = try Self.client(server, "alice", selfSigned ? [] : ["--ca-file", certificates.caFile])
        #expect(client.waitForExit() == 4)
        let errors = client.stderrLines.filter { !$0.isEmpty }
        #expect(errors.count == 1, "one line: \(errors)")
        let line = errors.first ?? ""
        #expect(line.hasPrefix("herald: error:") && line.contains("certificate"), "names the certificate problem: \(line)")
        #expect(line.contains(selfSigned ? "self-signed" : "mismatch"), "the verification result: \(line)")
        #expect(server.isRunning)
    }

    @Test("client-script.md exit 2: --ca-file that cannot be read, or --ca-file with --insecure, is a bad flag")
    func badTrustFlags() throws {
        let missing = try ClientProcess.launch(["--server", "wss://127.0.0.1:1", "--token", "a.eyJzdWIiOiJhIn0.b", "--script",
                                                "--ca-file", "/nonexistent/ca.pem"])
        #expect(missing.waitForExit() == 2)
        #expect(missing.stderrLines.first?.contains("--ca-file") == true, "\(missing.stderrText)")
        let both = try ClientProcess.launch(["--server", "wss://127.0.0.1:1", "--token", "a.eyJzdWIiOiJhIn0.b", "--script",
                                             "--ca-file", "x.pem", "--insecure"])
        #expect(both.waitForExit() == 2)
        #expect(both.stderrLines.filter { !$0.isEmpty }.count == 1)
    }

    @Test("permessage-deflate over plain ws:// too: offered by default and negotiated with herald-server")
    func compressionOverPlainWebSocket() throws {
        let server = try TestServer(pushGrace: 0)
        let alice = try server.client("alice")
        let bob = try server.client("bob")
        try Self.roundTrip(alice, bob, receiverName: "bob")
        #expect(alice.stderrLines.contains { $0.contains("connected to ws://") && $0.contains("permessage-deflate") }, "\(alice.stderrText)")
        #expect(alice.quit() == 0)
        #expect(bob.quit() == 0)
    }
}
