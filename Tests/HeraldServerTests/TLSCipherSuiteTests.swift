import Foundation
import HeraldTestSupport
import Testing

/// The TLS 1.2 suites `herald-server` accepts, probed with the real `openssl s_client` offering one suite at a time:
/// only ECDHE key exchange with an AEAD cipher (RFC 7525 §4.2: forward secrecy and no CBC MAC-then-encrypt), for an
/// RSA and for an ECDSA certificate; TLS 1.3 is served as before.
@Suite("TLS: TLS 1.2 suites are ECDHE with AEAD only")
struct TLSCipherSuiteTests {
    /// The outcome of one `s_client` handshake.
    struct Probe {
        let status: Int32
        let output: String
        var succeeded: Bool { status == 0 && output.contains("Cipher is ") && !output.contains("Cipher is (NONE)") }
    }

    /// Runs `openssl s_client` against the server's TLS port offering only `arguments`' version and suites; stdin is
    /// /dev/null, so a completed handshake ends at once with status 0 and a refused one exits non-zero.
    static func probe(port: Int, _ arguments: [String]) throws -> Probe {
        let result = try runToCompletion("/usr/bin/env", [
            "openssl", "s_client", "-connect", "127.0.0.1:\(port)", "-servername", "localhost",
        ] + arguments, timeout: .seconds(30))
        return Probe(status: result.status, output: result.standardOutput + result.standardError)
    }

    static func withServer(keyType: SelfSignedCertificate.KeyType, _ body: (Int) throws -> Void) throws {
        let certificate = try SelfSignedCertificate.make(keyType: keyType)
        let server = try ServerHarness.start(["--bench-endpoints"] + certificate.serverArguments)
        defer { server.stop() }
        try body(server.port)
        #expect(server.isRunning, "server died: \(server.standardError)")
    }

    @Test("RSA certificate: static-RSA and CBC suites are refused over TLS 1.2; ECDHE-RSA with GCM or ChaCha20 succeeds")
    func rsaCertificateSuites() throws {
        try Self.withServer(keyType: .rsa2048) { port in
            // Static RSA key exchange (no forward secrecy), CBC and GCM; then ECDHE with CBC.
            for refused in ["AES128-SHA", "AES256-SHA256", "AES128-GCM-SHA256", "ECDHE-RSA-AES128-SHA", "ECDHE-RSA-AES256-SHA384"] {
                let probe = try Self.probe(port: port, ["-tls1_2", "-cipher", refused])
                #expect(!probe.succeeded, "TLS 1.2 \(refused) was accepted:\n\(probe.output)")
            }
            for accepted in ["ECDHE-RSA-AES128-GCM-SHA256", "ECDHE-RSA-AES256-GCM-SHA384", "ECDHE-RSA-CHACHA20-POLY1305"] {
                let probe = try Self.probe(port: port, ["-tls1_2", "-cipher", accepted])
                #expect(probe.succeeded && probe.output.contains(accepted), "TLS 1.2 \(accepted) was refused:\n\(probe.output)")
            }
            let modern = try Self.probe(port: port, ["-tls1_3"])
            #expect(modern.succeeded && modern.output.contains("TLSv1.3"), "TLS 1.3 was refused:\n\(modern.output)")
        }
    }

    @Test("ECDSA certificate: CBC suites are refused over TLS 1.2; ECDHE-ECDSA with GCM or ChaCha20 succeeds")
    func ecdsaCertificateSuites() throws {
        try Self.withServer(keyType: .ecP256) { port in
            for refused in ["ECDHE-ECDSA-AES128-SHA", "ECDHE-ECDSA-AES256-SHA", "ECDHE-ECDSA-AES128-SHA256"] {
                let probe = try Self.probe(port: port, ["-tls1_2", "-cipher", refused])
                #expect(!probe.succeeded, "TLS 1.2 \(refused) was accepted:\n\(probe.output)")
            }
            for accepted in ["ECDHE-ECDSA-AES128-GCM-SHA256", "ECDHE-ECDSA-AES256-GCM-SHA384", "ECDHE-ECDSA-CHACHA20-POLY1305"] {
                let probe = try Self.probe(port: port, ["-tls1_2", "-cipher", accepted])
                #expect(probe.succeeded && probe.output.contains(accepted), "TLS 1.2 \(accepted) was refused:\n\(probe.output)")
            }
            let modern = try Self.probe(port: port, ["-tls1_3"])
            #expect(modern.succeeded && modern.output.contains("TLSv1.3"), "TLS 1.3 was refused:\n\(modern.output)")
        }
    }
}
