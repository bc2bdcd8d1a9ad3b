import Foundation
import HeraldKit
import HeraldTestSupport
import Testing

/// Push registration through the library against a real `herald-server` with Web Push configured: the token an app
/// gives in its configuration reaches the server for this device, and a token the server refuses comes back typed.
@Suite("HeraldKit push registration", .timeLimit(.minutes(2)))
struct PushRegistrationTests {
    /// A subscription as a browser's push service hands it out (RFC 8291 §3.2: a 65-byte P-256 point, a 16-byte secret).
    static let p256dh = "B" + String(repeating: "A", count: 86)
    static let auth = String(repeating: "Q", count: 22)

    static func server() throws -> TestServer {
        let key = FileManager.default.temporaryDirectory.appendingPathComponent("vapid-\(UUID().uuidString).pem").path
        let made = try runToCompletion("/bin/sh", ["-c", "openssl ecparam -name prime256v1 -genkey -noout | openssl pkcs8 -topk8 -nocrypt -out '\(key)'"])
        try #require(made.status == 0, "openssl: \(made.standardError)")
        return try TestServer(arguments: ["--vapid-key-file", key, "--vapid-subject", "mailto:ops@example.com"])
    }

    @Test("a Web Push token is registered for the configured device after the first sync; a malformed one is refused with the server's code")
    func registersThePushToken() async throws {
        let server = try Self.server()
        var configuration = HeraldConfiguration(server: server.url, token: try server.token("alice"))
        configuration.deviceName = "phone"
        configuration.pushToken = .webPush(endpoint: "https://push.example.com/send/alice-phone", p256dh: Self.p256dh, auth: Self.auth)
        let phone = EventRecorder(try HeraldSession(configuration: configuration))
        let registered = try await phone.wait("registration") {
            switch $0 {
            case .pushRegistered, .pushRegistrationRefused: true
            default: false
            }
        }
        #expect(registered == .pushRegistered(device: "phone"), "the server names the device it registered")

        // The server checks the subscription (RFC 8291 key sizes): a key that is not one is refused, and says why.
        configuration.deviceName = "laptop"
        configuration.pushToken = .webPush(endpoint: "https://push.example.com/send/alice-laptop", p256dh: "not-a-key", auth: Self.auth)
        let laptop = EventRecorder(try HeraldSession(configuration: configuration))
        let refused = try await laptop.wait("refusal") {
            switch $0 {
            case .pushRegistered, .pushRegistrationRefused: true
            default: false
            }
        }
        guard case .pushRegistrationRefused(let code, let message) = refused else {
            Issue.record("a malformed subscription was registered: \(refused)")
            return
        }
        #expect(code == "bad_request" && message.contains("p256dh"), "the server's reason: \(message)")

        await phone.session.disconnect()
        await laptop.session.disconnect()
    }
}
