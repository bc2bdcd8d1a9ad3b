import Foundation
import HeraldCrypto
@testable import HeraldPush
import HeraldProtocol
import HeraldStoreProtocol
import Testing

/// `--push-preview none`: a push carries its opaque reference and nothing that names a user, a conversation or a
/// message (no sender, no recipient, no ids, no link, no thread); collapse and withdrawal go by the reference.
@Suite("Push providers: an opaque push names nobody")
struct OpaquePushPayloadTests {
    /// What the queue holds for `--push-preview none`: the ids stay inside (to cancel and revise), the rest is cut.
    static func delivery(_ target: PushTargetRecord, kind: PushDeliveryKind = .message) -> PushDeliveryRecord {
        var delivery = PushDeliveryRecord(
            id: 7, target: target, kind: kind, conversation: kind == .bell ? nil : "c3", message: kind == .bell ? nil : "m42",
            notification: kind == .bell ? "n9" : nil, title: kind == .withdraw ? "" : "Herald", body: kind == .withdraw ? "" : "New message", badge: 4,
            createdAt: ProviderRequestTests.now, expiresAt: ProviderRequestTests.now + 3_600_000)
        delivery.reference = kind == .bell ? "n9" : "p17"
        return delivery
    }

    /// Every id the push must not carry, and the names of its people.
    static func leaks(in bytes: some Sequence<UInt8>) -> [String] {
        let text = String(decoding: Array(bytes), as: UTF8.self)
        return ["c3", "m42", "alice", "Alice", "bob", "conversation", "sender", "thread-id", "url", "herald://"].filter { text.contains($0) }
    }

    @Test("APNs: aps alert is the generic one, herald carries ref; no thread-id, and the collapse id is the reference", arguments: [PushDeliveryKind.message, .withdraw])
    func apns(kind: PushDeliveryKind) throws {
        let request = try ProviderRequestTests.apns().request(
            for: Self.delivery(ProviderRequestTests.apnsTarget, kind: kind), now: ProviderRequestTests.now, send: ProviderRequestTests.noNetwork)
        #expect(Self.leaks(in: request.body).isEmpty, "\(String(decoding: request.body, as: UTF8.self))")
        let body = try #require(try JSONSerialization.jsonObject(with: Data(request.body)) as? [String: Any])
        #expect((body["herald"] as? [String: Any])?["ref"] as? String == "p17")
        if kind == .message {
            #expect(request.header("apns-collapse-id") == "p17")
            #expect(((body["aps"] as? [String: Any])?["alert"] as? [String: Any])?["title"] as? String == "Herald")
        }
    }

    @Test("FCM: data carries ref and no ids; collapse key and tag are the reference")
    func fcm() throws {
        let target = PushTargetRecord(id: 4, user: "bob", device: "bob-pixel", provider: .fcm, token: "t")
        let message = FCMClient.message(for: Self.delivery(target), now: ProviderRequestTests.now).text
        #expect(Self.leaks(in: message.utf8).isEmpty, "\(message)")
        #expect(message.contains(#""collapse_key":"p17""#))
        #expect(message.contains(#""ref":"p17""#))
    }

    @Test("Web Push: the decrypted payload carries ref and no ids; Topic is the reference")
    func webPush() throws {
        let subscriber = try P256PrivateKey.generate()
        let auth = SecureRandom.bytes(16)
        let client = try WebPushClient(vapidKeyPEM: try P256PrivateKey.generate().pemPKCS8(), subject: "mailto:ops@example.com")
        let target = PushTargetRecord(
            id: 3, user: "bob", device: "bob-browser", provider: .webpush, token: "https://push.example.net/s/1",
            p256dh: Base64URL.encode(subscriber.publicKey), auth: Base64URL.encode(auth))
        let request = try client.request(for: Self.delivery(target), now: ProviderRequestTests.now, send: ProviderRequestTests.noNetwork)
        let plaintext = try WebPushEncryption.decrypt(request.body, receiverKey: subscriber, authSecret: auth)
        #expect(Self.leaks(in: plaintext).isEmpty, "\(String(decoding: plaintext, as: UTF8.self))")
        #expect(request.header("Topic") == "p17")
    }

    @Test("Webhook and bell: no recipient user or device name, no actor; the notification id is the bell's reference")
    func webhookBell() throws {
        let client = try WebhookClient(url: "https://app.example.com/push", secret: Array("0123456789abcdef0123456789abcdef".utf8))
        let target = PushTargetRecord(id: 2, user: "bob", device: "bob-app", provider: .webhook, token: "device-1")
        let request = try client.request(for: Self.delivery(target, kind: .bell), now: ProviderRequestTests.now, send: ProviderRequestTests.noNetwork)
        #expect(Self.leaks(in: request.body).isEmpty, "\(String(decoding: request.body, as: UTF8.self))")
        let body = try #require(try JSONSerialization.jsonObject(with: Data(request.body)) as? [String: Any])
        #expect(body["user"] == nil && body["device"] == nil)
        #expect(body["token"] as? String == "device-1")
        #expect(body["ref"] as? String == "n9")
    }
}
