import Foundation

/// A self-signed certificate for localhost/127.0.0.1, made by the `openssl` command at test time (P-256: fast to
/// generate), in a fresh temporary directory. The openssl child is run with ``runToCompletion(_:_:environment:timeout:)``
/// (posix_spawn + waitpid), never Foundation's `Process.waitUntilExit`, which has hung on already-reaped children.
public struct SelfSignedCertificate: Sendable {
    /// The certificate, PEM.
    public let certificateFile: String
    /// Its private key, PEM, unencrypted.
    public let keyFile: String

    /// The certificate's key type, which decides the TLS 1.2 suites it can serve (ECDHE-ECDSA-* or *-RSA-*).
    public enum KeyType: Sendable {
        /// P-256.
        case ecP256
        /// RSA 2048, for tests of RSA suites (static-RSA key exchange needs an RSA certificate).
        case rsa2048

        var newKeyArguments: [String] {
            switch self {
            case .ecP256: ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1"]
            case .rsa2048: ["-newkey", "rsa:2048"]
            }
        }
    }

    /// Runs `openssl req -x509` with `commonName` and subjectAltName `DNS:localhost,IP:127.0.0.1`.
    public static func make(commonName: String = "localhost", keyType: KeyType = .ecP256) throws -> SelfSignedCertificate {
        let directory = NSTemporaryDirectory() + "herald-tls-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let certificate = directory + "/cert.pem", key = directory + "/key.pem"
        let result = try runToCompletion("/usr/bin/env", ["openssl", "req", "-x509"] + keyType.newKeyArguments + [
            "-nodes", "-subj", "/CN=\(commonName)", "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1", "-days", "2",
            "-keyout", key, "-out", certificate,
        ])
        guard result.status == 0 else {
            throw ProcessHarnessError("openssl req exited with \(result.status): \(result.standardError)")
        }
        return SelfSignedCertificate(certificateFile: certificate, keyFile: key)
    }

    /// `--tls-cert` and `--tls-key` for this certificate.
    public var serverArguments: [String] { ["--tls-cert", certificateFile, "--tls-key", keyFile] }
}
