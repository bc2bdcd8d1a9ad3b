import Foundation
import HeraldCrypto
import HeraldProtocol
@testable import HeraldPush
import HeraldStoreProtocol
import Testing

/// N3: a push to a user with quiet hours on is delivered without sound or banner, and marked quiet, in each provider's
/// own words (Apple's `interruption-level`, Android's notification channel and priority, RFC 8030's Urgency), while
/// a push outside quiet hours keeps its sound. Each test compares a quiet push with the same push not quiet.
@Suite("N3: quiet pushes in every provider's payload")
struct QuietPushPayloadTests {
    static func delivery(_ target: PushTargetRecord, quiet: Bool) -> PushDeliveryRecord {
        var delivery = ProviderRequestTests.delivery(target)
        delivery.quiet = quiet
        return delivery
    }

    static func json(_ bytes: [UInt8]) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
    }

    @Test("N3, APNs: quiet is an alert (listed, with badge) at interruption level passive without sound; herald.quiet is true; not quiet has sound default")
    func apns() throws {
        let client = try ProviderRequestTests.apns()
        let quiet = try client.request(for: Self.delivery(ProviderRequestTests.apnsTarget, quiet: true), now: ProviderRequestTests.now, send: ProviderRequestTests.noNetwork)
        let body = try Self.json(quiet.body)
        let aps = try #require(body["aps"] as? [String: Any])
        #expect(aps["sound"] == nil, "no sound")
        #expect(aps["interruption-level"] as? String == "passive", "Apple: passive adds it to the list without lighting the screen or playing a sound")
        #expect(aps["content-available"] == nil, "still a visible alert, not a background push")
        #expect((aps["alert"] as? [String: Any])?["body"] as? String == "hi")
        #expect((aps["badge"] as? NSNumber)?.intValue == 4, "N3: the badge is unaffected")
        #expect(quiet.header("apns-push-type") == "alert")
        #expect((body["herald"] as? [String: Any])?["quiet"] as? Bool == true)

        let loud = try client.request(for: Self.delivery(ProviderRequestTests.apnsTarget, quiet: false), now: ProviderRequestTests.now, send: ProviderRequestTests.noNetwork)
        let loudBody = try Self.json(loud.body)
        let loudAps = try #require(loudBody["aps"] as? [String: Any])
        #expect(loudAps["sound"] as? String == "default")
        #expect(loudAps["interruption-level"] == nil)
        #expect((loudBody["herald"] as? [String: Any])?["quiet"] == nil)
    }

    @Test("N3, FCM: quiet goes to the low-importance channel herald_quiet at PRIORITY_LOW without default sound, passive for iOS, data quiet \"true\"; not quiet keeps sound")
    func fcm() throws {
        let target = PushTargetRecord(id: 4, user: "bob", device: "bob-pixel", provider: .fcm, token: "fcm-token-1")
        let quiet = try #require(try Self.fcmMessage(Self.delivery(target, quiet: true)))
        let android = try #require(quiet["android"] as? [String: Any])
        let notification = try #require(android["notification"] as? [String: Any])
        #expect(notification["channel_id"] as? String == FCMClient.quietChannelID)
        #expect(FCMClient.quietChannelID == "herald_quiet", "the name the app creates its channel under (PROTOCOL.md)")
        #expect(notification["notification_priority"] as? String == "PRIORITY_LOW", "listed and silent; PRIORITY_MIN may not be shown at all")
        #expect(notification["default_sound"] as? Bool == false)
        #expect(notification["sound"] == nil)
        #expect((notification["notification_count"] as? NSNumber)?.intValue == 4)
        #expect((quiet["notification"] as? [String: Any])?["body"] as? String == "hi", "still a notification, shown in the list")
        let aps = try #require(((quiet["apns"] as? [String: Any])?["payload"] as? [String: Any])?["aps"] as? [String: Any])
        #expect(aps["interruption-level"] as? String == "passive")
        #expect(aps["sound"] == nil)
        #expect((quiet["data"] as? [String: Any])?["quiet"] as? String == "true", "FCM data values are strings")

        let loud = try #require(try Self.fcmMessage(Self.delivery(target, quiet: false)))
        let loudNotification = try #require((loud["android"] as? [String: Any])?["notification"] as? [String: Any])
        #expect(loudNotification["channel_id"] == nil && loudNotification["notification_priority"] == nil && loudNotification["default_sound"] == nil)
        let loudAps = ((loud["apns"] as? [String: Any])?["payload"] as? [String: Any])?["aps"] as? [String: Any]
        #expect(loudAps?["sound"] as? String == "default")
        #expect(loudAps?["interruption-level"] == nil)
        #expect((loud["data"] as? [String: Any])?["quiet"] == nil)
    }

    static func fcmMessage(_ delivery: PushDeliveryRecord) throws -> [String: Any]? {
        let envelope = try Self.json(Array(FCMClient.message(for: delivery, now: ProviderRequestTests.now).text.utf8))
        return envelope["message"] as? [String: Any]
    }

    @Test("N3, Web Push: quiet is sent at Urgency normal (it need not wake the device) with quiet true in the encrypted payload; not quiet at high")
    func webPush() throws {
        let subscriber = try P256PrivateKey.generate()
        let auth = SecureRandom.bytes(16)
        let client = try WebPushClient(vapidKeyPEM: try P256PrivateKey.generate().pemPKCS8(), subject: "mailto:ops@example.com")
        let target = PushTargetRecord(
            id: 3, user: "bob", device: "bob-browser", provider: .webpush, token: "https://push.example.net:8443/s/1",
            p256dh: Base64URL.encode(subscriber.publicKey), auth: Base64URL.encode(auth))
        for quiet in [true, false] {
            let request = try client.request(for: Self.delivery(target, quiet: quiet), now: ProviderRequestTests.now, send: ProviderRequestTests.noNetwork)
            #expect(request.header("Urgency") == (quiet ? "normal" : "high"))
            let payload = try Self.json(try WebPushEncryption.decrypt(request.body, receiverKey: subscriber, authSecret: auth))
            #expect((payload["quiet"] as? Bool) == (quiet ? true : nil))
            #expect(payload["body"] as? String == "hi", "a quiet push is still shown")
        }
    }

    @Test("N3, webhook: the app's backend gets quiet true in the signed body, and nothing when not quiet")
    func webhook() throws {
        let client = try WebhookClient(url: "https://app.example.com/push", secret: Array("0123456789abcdef0123456789abcdef".utf8))
        let target = PushTargetRecord(id: 2, user: "bob", device: "bob-app", provider: .webhook, token: "device-1")
        for quiet in [true, false] {
            let request = try client.request(for: Self.delivery(target, quiet: quiet), now: ProviderRequestTests.now, send: ProviderRequestTests.noNetwork)
            #expect((try Self.json(request.body)["quiet"] as? Bool) == (quiet ? true : nil))
        }
    }
}
