import Foundation
import HeraldTestSupport
import Testing

extension EndToEnd {
    /// `--push-preview none` against every provider's stand-in, reading what each one received: a message push and a
    /// bell push carry a generic alert and an opaque `ref`, and no user id, name, conversation or message id, link,
    /// group title or text, in the payload or in any header the provider reads (collapse id, Topic).
    @Suite("Push: --push-preview none names nobody")
    struct PushPreviewNone {
        typealias Providers = EndToEnd.PushProviders

        static func setup(_ provider: String) throws -> Providers.Setup {
            switch provider {
            case "apns":
                let key = try Providers.p256Key()
                let standIn = try PushStandIn(
                    "apns.py", ["--team-id", "TEAM123456", "--key-id", "KEY1234567", "--key-file", key, "--topic", "com.example.herald", "--token-refresh-min", "0"],
                    certificate: try SelfSignedCertificate.make())
                return Providers.Setup(
                    standIn: standIn,
                    serverArguments: [
                        "--apns-key-file", key, "--apns-key-id", "KEY1234567", "--apns-team-id", "TEAM123456", "--apns-url", "https://127.0.0.1:\(standIn.port)",
                    ],
                    registration: #"{"device":"bob-iphone","provider":"apns","token":"\#(Providers.deviceToken)","topic":"com.example.herald"}"#)
            case "fcm":
                let port = try Providers.freePort()
                let account = Providers.temporary("service-account.json")
                try Providers.sh(
                    "python3 '\(PushStandIn.directory)/make_service_account.py' --out '\(account)' --token-uri https://127.0.0.1:\(port)/token --project-id herald-test")
                let standIn = try PushStandIn(
                    "fcm.py", ["--project-id", "herald-test", "--service-account", account], certificate: try SelfSignedCertificate.make(), port: port)
                return Providers.Setup(
                    standIn: standIn, serverArguments: ["--fcm-service-account-file", account, "--fcm-url", "https://127.0.0.1:\(port)"],
                    registration: #"{"device":"bob-pixel","provider":"fcm","token":"fcm-token:APA91bHPRgkF3JUikC4ENAHEeMrd41Zxv3hVZjC9KtT8OvPVGJ"}"#)
            case "webpush":
                let vapid = try Providers.p256Key()
                let subscriptions = Providers.temporary("subscriptions.json")
                let standIn = try PushStandIn("webpush.py", ["--subscriptions-out", subscriptions], certificate: try SelfSignedCertificate.make())
                let listed = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: subscriptions))) as? [[String: String]]
                let subscription = try #require(listed?.first)
                return Providers.Setup(
                    standIn: standIn, serverArguments: ["--vapid-key-file", vapid, "--vapid-subject", "mailto:ops@example.com", "--push-allow-http-loopback"],
                    registration:
                        #"{"device":"bob-browser","provider":"webpush","endpoint":"\#(subscription["endpoint"] ?? "")","p256dh":"\#(subscription["p256dh"] ?? "")","auth":"\#(subscription["auth"] ?? "")"}"#
                )
            default:
                let secret = try EndToEnd.PushFaults.secretFile()
                let standIn = try PushStandIn("webhook.py", ["--secret-file", secret], certificate: try SelfSignedCertificate.make())
                return Providers.Setup(
                    standIn: standIn, serverArguments: ["--webhook-url", "https://127.0.0.1:\(standIn.port)/push", "--webhook-secret-file", secret],
                    registration: #"{"device":"bob-app","provider":"webhook","token":"device-7f3a"}"#)
            }
        }

        /// The parts of a stand-in's log entry that carry what Herald sent about the push: the decoded payload, and the
        /// headers and extras a provider reads (collapse id, Topic, thread), as JSON text.
        static func sent(_ entry: [String: Any]) -> String {
            var parts: [String: Any] = [:]
            parts["payload"] = entry["payload"] ?? NSNull()
            parts["plaintext"] = entry["plaintext"] ?? NSNull()
            for key in ["collapseId", "topic"] { parts[key] = entry[key] ?? NSNull() }
            let headers = entry["headers"] as? [String: Any] ?? [:]
            parts["headers"] = headers.filter { !["authorization", "herald-signature", "crypto-key", "encryption"].contains($0.key) }
            return (try? JSONSerialization.data(withJSONObject: parts, options: [.sortedKeys])).map { String(decoding: $0, as: UTF8.self) } ?? ""
        }

        @Test("A message push and a bell push to a locked device carry only a generic alert and an opaque ref", arguments: ["apns", "fcm", "webpush", "webhook"])
        func namesNobody(provider: String) throws {
            let setup = try Self.setup(provider)
            let scene = try Providers.scene(setup, arguments: ["--push-preview", "none"])
            let message = try scene.world.send(scene.alice, scene.conversation, "the secret plan")
            let accepted = { (log: [[String: Any]]) in log.filter { (200..<300).contains(Providers.status($0)) && $0["kind"] as? String != "token" } }
            let alert = try setup.standIn.waitLog("the message push") { accepted($0).first }
            // B1 through the backend API: alice as the actor, a link into the conversation.
            let body = #"{"kind":"reminder","text":"alice reacted to the secret plan","actor":"alice","url":"herald://conversation/\#(scene.conversation)"}"#
            let (status, answer) = try Providers.api(scene.world, key: scene.key, "POST", "/users/bob/notifications", body: body)
            #expect(status == 200 || status == 201, "\(answer)")
            let bell = try setup.standIn.waitLog("the bell push") { log in accepted(log).count >= 2 ? accepted(log)[1] : nil }
            for (name, entry) in [("message push", alert), ("bell push", bell)] {
                let text = Self.sent(entry)
                #expect(entry["verified"] as? Bool == true, "\(provider) \(name): \(entry["violations"] ?? "")")
                for secret in ["\"alice\"", "Alice", "\"bob\"", "bob-", "\"\(scene.conversation)\"", "\"\(message)\"", "herald://", "secret plan", "sender", "thread-id"] {
                    #expect(!text.contains(secret), "\(provider) \(name) reveals \(secret): \(text)")
                }
                #expect(text.contains("\"ref\""), "\(provider) \(name) carries an opaque ref: \(text)")
            }
        }
    }
}
