import Foundation
import HeraldTestSupport
import Testing

extension EndToEnd {
    /// Push credentials that cannot work stop `herald-server` at start with the reason (never a server that takes
    /// targets it can never reach), and the file's content never appears in the message.
    @Suite("Push configuration errors")
    struct PushConfiguration {
        static func serve(_ arguments: [String]) throws -> CompletedProcess {
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("herald-push-config-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let garbage = directory.appendingPathComponent("garbage.pem").path
            try Data("-----BEGIN PRIVATE KEY-----\nc2VjcmV0LWJ1dC1ub3QtYS1rZXk=\n-----END PRIVATE KEY-----\n".utf8).write(to: URL(fileURLWithPath: garbage))
            let resolved = arguments.map { $0 == "GARBAGE" ? garbage : $0 }
            return try runToCompletion(HeraldBinaries.server, ["serve", "--port", "0", "--db", directory.appendingPathComponent("h.db").path] + resolved)
        }

        @Test("Refused at start, status ≠ 0, with what is wrong", arguments: [
            (["--apns-key-file", "GARBAGE"], "--apns-key-id and --apns-team-id as well"),
            (["--apns-key-file", "GARBAGE", "--apns-key-id", "KEY1234567", "--apns-team-id", "TEAM123456"], "APNs key is not a P-256 private key"),
            (["--vapid-key-file", "GARBAGE", "--vapid-subject", "mailto:ops@example.com"], "VAPID key is not a P-256 private key"),
            (["--vapid-key-file", "GARBAGE"], "--vapid-subject as well"),
            (["--fcm-service-account-file", "/nonexistent/sa.json"], "cannot read the file"),
            (["--fcm-service-account-file", "GARBAGE"], "not JSON"),
            (["--webhook-url", "https://app.example.com/push"], "--webhook-secret-file as well"),
            (["--push-preview", "loud"], "full, sender or none"),
            (["--push-concurrency", "0"], "positive integer"),
            (["--push-host-concurrency", "65"], "1...64"),
            (["--push-stall-timeout-ms", "100"], "1000...60000 ms"),
            (["--push-test-resolve", "push.example.com"], "host:port:address entries"),
        ] as [([String], String)])
        func refused(arguments: [String], reason: String) throws {
            let result = try Self.serve(arguments)
            #expect(result.status != 0)
            #expect(result.standardError.contains(reason), "\(result.standardError)")
            #expect(!result.standardError.contains("c2VjcmV0"), "a credentials file's content is never printed")
        }
    }
}
