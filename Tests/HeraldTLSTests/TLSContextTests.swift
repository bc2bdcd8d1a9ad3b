import COpenSSL
import Foundation
@testable import HeraldTLS
import Testing

@Suite("TLS contexts: versions, certificates, reload")
struct TLSContextTests {
    @Test("A TLS 1.1 client is refused by the server (TLS 1.2+ only)")
    func tls11Refused() throws {
        let certificate = try TestCertificate.shared.get()
        let server = try TLSContext.server(certificateChainFile: certificate.certificateFile, privateKeyFile: certificate.keyFile)
        let client = try TLSContext.client(trust: .insecure, minimumVersion: .tls11, maximumVersion: .tls11)
        // OpenSSL 3 disables TLS 1.1 at security level 1 on its own; level 0 lets this client really offer it, so the
        // refusal below is the server's.
        #expect(SSL_CTX_set_cipher_list(client.context, "DEFAULT:@SECLEVEL=0") == 1)
        var pair = try EnginePair(client: client, server: server)
        #expect(!pair.toServer.isEmpty, "the client sent a ClientHello")
        var serverFailed: TLSError?
        do {
            try pair.server.receive(pair.toServer, plaintext: &pair.serverReceived, output: &pair.toClient)
        } catch {
            serverFailed = error
        }
        let error = try #require(serverFailed)
        #expect(error.kind == .handshake)
        #expect(error.detail.contains("unsupported protocol") || error.detail.contains("version"), "\(error)")
        #expect(!pair.toClient.isEmpty, "the server answers with an alert")
        pair.toServer = []
        #expect(throws: TLSError.self) { try pair.pump() }
    }

    @Test("Missing or mismatched certificate files are .certificate errors naming the call")
    func badCertificateFiles() throws {
        let certificate = try TestCertificate.shared.get()
        let other = try TestCertificate.make(in: certificate.directory, prefix: "other")
        let missing = try #require(throws: TLSError.self) {
            try TLSContext.server(certificateChainFile: certificate.directory + "/nope.pem", privateKeyFile: certificate.keyFile)
        }
        #expect(missing.kind == .certificate)
        #expect(missing.operation.hasPrefix("SSL_CTX_use_certificate_chain_file"))
        let mismatched = try #require(throws: TLSError.self) {
            try TLSContext.server(certificateChainFile: certificate.certificateFile, privateKeyFile: other.keyFile)
        }
        #expect(mismatched.kind == .certificate)
        #expect(throws: TLSError.self) { try TLSContext.client(trust: .caFile(certificate.directory + "/nope.pem")) }
    }

    @Test("Reload swaps the certificate for new connections; open ones keep theirs; a failed reload keeps the old")
    func reload() throws {
        let directory = NSTemporaryDirectory() + "herald-tls-reload-\(UUID().uuidString)"
        let first = try TestCertificate.make(commonName: "localhost", in: directory, prefix: "live")
        let reloadable = try ReloadableTLSContext(certificateChainFile: first.certificateFile, privateKeyFile: first.keyFile)
        let client = try TLSContext.client(trust: .insecure)

        var before = try EnginePair(client: client, server: reloadable.current)
        try before.pump()
        #expect(before.client.peerCertificateSubject == "/CN=localhost")

        // Renewal writes new files in place (same paths), then the server reloads.
        _ = try TestCertificate.make(commonName: "renewed", in: directory, prefix: "live")
        try reloadable.reload()
        var after = try EnginePair(client: client, server: reloadable.current)
        try after.pump()
        #expect(after.client.peerCertificateSubject == "/CN=renewed")

        // The connection made before the reload still works.
        try before.server.write(Array("still here".utf8), into: &before.toClient)
        try before.pump()
        #expect(before.clientReceived == Array("still here".utf8))

        // A broken key file: reload fails, the renewed context stays current.
        try Data("not a key".utf8).write(to: URL(fileURLWithPath: first.keyFile))
        #expect(throws: TLSError.self) { try reloadable.reload() }
        var still = try EnginePair(client: client, server: reloadable.current)
        try still.pump()
        #expect(still.client.peerCertificateSubject == "/CN=renewed")
    }
}
