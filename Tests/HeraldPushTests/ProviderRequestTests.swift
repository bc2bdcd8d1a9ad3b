import Foundation
import HeraldCrypto
@testable import HeraldPush
import HeraldStoreProtocol
import Testing

/// The provider clients without IO: what each request says, and what each answer means for the queued push.
@Suite("Push providers: requests and answers")
struct ProviderRequestTests {
    static let now: Int64 = 1_795_000_000_000

    static func delivery(_ target: PushTargetRecord, kind: PushDeliveryKind = .message) -> PushDeliveryRecord {
        PushDeliveryRecord(
            id: 7, target: target, kind: kind, conversation: "c3", message: "m42", sender: "alice", title: "Alice", body: kind == .withdraw ? "" : "hi",
            url: "herald://conversation/c3", badge: 4, createdAt: now, expiresAt: now + 3_600_000)
    }

    static func noNetwork(_ request: OutboundRequest) -> Result<HTTPResponse, TransferError> {
        .failure(TransferError(code: -1, message: "no network in this test"))
    }

    static let apnsTarget = PushTargetRecord(
        id: 1, user: "bob", device: "bob-iphone", provider: .apns, token: String(repeating: "ab", count: 32), topic: "com.example.app", sandbox: true)

    static func apns() throws -> APNsClient {
        let key = try P256PrivateKey.generate()
        return try APNsClient(keyPEM: try key.pemPKCS8(), keyID: "KEY1234567", teamID: "TEAM123456")
    }

    @Test("APNs alert: the sandbox host, bearer ES256 token, alert type at priority 10, collapse id, expiration, aps with badge")
    func apnsAlert() throws {
        let request = try Self.apns().request(for: Self.delivery(Self.apnsTarget), now: Self.now, send: Self.noNetwork)
        #expect(request.url == "https://api.sandbox.push.apple.com/3/device/\(Self.apnsTarget.token)")
        #expect(request.requiresHTTP2)
        #expect(request.header("apns-push-type") == "alert")
        #expect(request.header("apns-priority") == "10")
        #expect(request.header("apns-collapse-id") == "m42")
        #expect(request.header("apns-expiration") == String((Self.now + 3_600_000) / 1_000))
        #expect(request.header("authorization")?.hasPrefix("bearer ey") == true)
        let body = try JSONSerialization.jsonObject(with: Data(request.body)) as? [String: Any]
        let aps = body?["aps"] as? [String: Any]
        #expect((aps?["badge"] as? NSNumber)?.intValue == 4)
        #expect((aps?["alert"] as? [String: Any])?["body"] as? String == "hi")
    }

    @Test("APNs withdrawal: a background push at priority 5 with content-available only, no collapse id")
    func apnsWithdrawal() throws {
        let request = try Self.apns().request(for: Self.delivery(Self.apnsTarget, kind: .withdraw), now: Self.now, send: Self.noNetwork)
        #expect(request.header("apns-push-type") == "background")
        #expect(request.header("apns-priority") == "5")
        #expect(request.header("apns-collapse-id") == nil)
        let body = try JSONSerialization.jsonObject(with: Data(request.body)) as? [String: Any]
        #expect((body?["aps"] as? [String: Any])?.keys.sorted() == ["content-available"])
    }

    @Test("APNs provider token: reused within 50 minutes, made anew after, and after APNs refused it")
    func apnsTokenLifetime() throws {
        let client = try Self.apns()
        let first = try client.providerToken(now: Self.now)
        #expect(try client.providerToken(now: Self.now + 49 * 60_000) == first)
        #expect(try client.providerToken(now: Self.now + 51 * 60_000) != first)
        let renewed = try client.providerToken(now: Self.now + 52 * 60_000)
        client.invalidateCredentials()
        #expect(try client.providerToken(now: Self.now + 53 * 60_000) != renewed)
    }

    @Test("APNs answers", arguments: [
        (200, "", DeliveryOutcome.accepted),
        (410, #"{"reason":"Unregistered","timestamp":1}"#, .targetGone(reason: "APNs: Unregistered")),
        (400, #"{"reason":"BadDeviceToken"}"#, .targetGone(reason: "APNs: BadDeviceToken")),
        (403, #"{"reason":"ExpiredProviderToken"}"#, .refreshCredentials(reason: "APNs: ExpiredProviderToken")),
        (429, #"{"reason":"TooManyRequests"}"#, .retry(after: nil, reason: "APNs 429: TooManyRequests")),
        (503, #"{"reason":"ServiceUnavailable"}"#, .retry(after: nil, reason: "APNs 503: ServiceUnavailable")),
        (413, #"{"reason":"PayloadTooLarge"}"#, .rejected(reason: "APNs 413: PayloadTooLarge")),
    ] as [(Int, String, DeliveryOutcome)])
    func apnsAnswers(status: Int, body: String, expected: DeliveryOutcome) throws {
        let outcome = try Self.apns().outcome(of: HTTPResponse(status: status, body: Array(body.utf8)), for: Self.delivery(Self.apnsTarget))
        #expect(outcome == expected)
    }

    @Test("FCM answers: any 404 and a 400 naming UNREGISTERED remove the target, 401 renews the token, 429/5xx retry with Retry-After", arguments: [
        (404, #"{"error":{"status":"NOT_FOUND","details":[{"errorCode":"UNREGISTERED"}]}}"#, nil as String?, "gone"),
        (404, #"{"error":{"status":"NOT_FOUND"}}"#, nil, "gone"),
        (400, #"{"error":{"status":"INVALID_ARGUMENT","details":[{"errorCode":"UNREGISTERED"}]}}"#, nil, "gone"),
        (401, #"{"error":{"status":"UNAUTHENTICATED"}}"#, nil, "refresh"),
        (429, #"{"error":{"status":"RESOURCE_EXHAUSTED"}}"#, "7", "retry 7"),
        (503, #"{"error":{"status":"UNAVAILABLE"}}"#, nil, "retry"),
        (400, #"{"error":{"status":"INVALID_ARGUMENT"}}"#, nil, "rejected"),
    ] as [(Int, String, String?, String)])
    func fcmAnswers(status: Int, body: String, retryAfter: String?, expected: String) throws {
        let outcome = FCMClientOutcome.describe(status: status, body: body, retryAfter: retryAfter)
        #expect(outcome == expected)
    }

    @Test("Webhook: the signature is HMAC-SHA256 over \"<t>.<body>\", as a receiver recomputes it")
    func webhookSignature() throws {
        let secret = Array("0123456789abcdef0123456789abcdef".utf8)
        let client = try WebhookClient(url: "https://app.example.com/push", secret: secret)
        let target = PushTargetRecord(id: 2, user: "bob", device: "bob-app", provider: .webhook, token: "device-1")
        let request = try client.request(for: Self.delivery(target), now: Self.now, send: Self.noNetwork)
        let header = try #require(request.header("Herald-Signature"))
        let time = Self.now / 1_000
        #expect(header == "t=\(time),v1=\(HMACSHA256.hexMAC(key: secret, message: Array("\(time).".utf8) + request.body))")
        let body = try JSONSerialization.jsonObject(with: Data(request.body)) as? [String: Any]
        #expect(body?["token"] as? String == "device-1")
        #expect(body?["message"] as? String == "m42")
    }

    @Test("Web Push: the body decrypts with the subscription's key (RFC 8291), Topic is the message, VAPID names the origin")
    func webPushRoundTrip() throws {
        let subscriber = try P256PrivateKey.generate()
        let auth = SecureRandom.bytes(16)
        let vapid = try P256PrivateKey.generate()
        let client = try WebPushClient(vapidKeyPEM: try vapid.pemPKCS8(), subject: "mailto:ops@example.com")
        let target = PushTargetRecord(
            id: 3, user: "bob", device: "bob-browser", provider: .webpush, token: "https://push.example.net:8443/s/1",
            p256dh: Base64URL.encode(subscriber.publicKey), auth: Base64URL.encode(auth))
        let request = try client.request(for: Self.delivery(target), now: Self.now, send: Self.noNetwork)
        let plaintext = try WebPushEncryption.decrypt(request.body, receiverKey: subscriber, authSecret: auth)
        let payload = try JSONSerialization.jsonObject(with: Data(plaintext)) as? [String: Any]
        #expect(payload?["message"] as? String == "m42")
        #expect(payload?["badge"] as? NSNumber == 4)
        #expect(request.header("Topic") == "m42")
        #expect(request.header("Urgency") == "high")
        #expect(request.header("TTL") == "3600")
        #expect(request.header("Authorization")?.hasPrefix("vapid t=") == true)
        #expect(request.header("Authorization")?.hasSuffix("k=\(client.applicationServerKey)") == true)
    }

    @Test("Web Push: a subscription key that is not a point on the curve makes the push unsendable, not a crash")
    func webPushBadKey() throws {
        let client = try WebPushClient(vapidKeyPEM: try P256PrivateKey.generate().pemPKCS8(), subject: "mailto:ops@example.com")
        let target = PushTargetRecord(
            id: 3, user: "bob", device: "b", provider: .webpush, token: "https://push.example.net/s", p256dh: "B" + String(repeating: "A", count: 86),
            auth: String(repeating: "A", count: 22))
        #expect(throws: PushProviderError.self) { try client.request(for: Self.delivery(target), now: Self.now, send: Self.noNetwork) }
    }

    @Test("Retry-After in delay-seconds, as libcurl hands the header line (with CRLF), and as an HTTP date")
    func retryAfter() {
        #expect(HTTPResponse(status: 429, headers: ["retry-after": "4\r\n"]).retryAfter == .delay(seconds: 4))
        #expect(HTTPResponse(status: 429, headers: ["retry-after": " 120 "]).retryAfter == .delay(seconds: 120))
        let date = HTTPResponse(status: 503, headers: ["retry-after": "Wed, 21 Oct 2026 07:28:00 GMT"]).retryAfter
        #expect(date?.seconds(now: 1_792_567_650_000) == 30, "30 s before that date")
        #expect(HTTPResponse(status: 503).retryAfter == nil)
    }

    @Test("FCM token endpoint: an expires_in of any size or sign is bounded (a minute to a day) and never traps", arguments: [
        Int64.max, Int64.max / 1_000, Int64.min, -1, 0, 3_600,
    ])
    func fcmTokenLifetime(lifetime: Int64) throws {
        let pem = try FCMClientOutcome.runOpenSSL(["genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048"])
        let key = String(decoding: try JSONSerialization.data(withJSONObject: [pem]), as: UTF8.self).dropFirst().dropLast()
        let account = #"{"type":"service_account","project_id":"p","private_key":\#(key),"client_email":"e@p.iam.gserviceaccount.com","token_uri":"https://oauth2.example.com/token"}"#
        let client = try FCMClient(serviceAccountJSON: Array(account.utf8))
        var grants = 0
        let send = { (_: OutboundRequest) -> Result<HTTPResponse, TransferError> in
            grants += 1
            return .success(HTTPResponse(status: 200, body: Array(#"{"access_token":"token","expires_in":\#(lifetime)}"#.utf8)))
        }
        #expect(try client.token(now: Self.now, send: send) == "token")
        #expect(try client.token(now: Self.now, send: send) == "token")
        #expect(grants == 1, "kept at least for the moment it was granted")
        _ = try client.token(now: Self.now + 86_400_000, send: send)
        #expect(grants == 2, "never kept beyond a day, whatever the endpoint said")
    }

    @Test("Retry backoff: doubles from 1 s to its cap, half fixed and half jitter, never sooner than Retry-After")
    func backoff() {
        let policy = PushRetryPolicy(baseMilliseconds: 1_000, maxBackoffMilliseconds: 60_000)
        for attempts in 1...40 {
            let backoff = min(Int64(1_000) << Int64(min(attempts - 1, 30)), 60_000)
            for random in stride(from: 0.0, through: 1.0, by: 0.25) {
                let delay = policy.nextAttempt(afterAttempts: attempts, retryAfterSeconds: nil, now: 0, random: random)
                #expect(delay >= backoff / 2 && delay <= backoff)
                #expect(policy.nextAttempt(afterAttempts: attempts, retryAfterSeconds: 90, now: 0, random: random) >= 90_000)
            }
        }
    }
}

/// FCM's answers in words, so the table above reads without building a client (whose key takes an RSA PEM).
enum FCMClientOutcome {
    static func describe(status: Int, body: String, retryAfter: String?) -> String {
        let client = FCMClientOutcome.client
        var headers: [String: String] = [:]
        if let retryAfter { headers["retry-after"] = retryAfter }
        let target = PushTargetRecord(id: 4, user: "bob", device: "bob-pixel", provider: .fcm, token: "t")
        switch client.outcome(of: HTTPResponse(status: status, headers: headers, body: Array(body.utf8)), for: ProviderRequestTests.delivery(target)) {
        case .accepted: return "accepted"
        case .targetGone: return "gone"
        case .refreshCredentials: return "refresh"
        case .retry(let after, _): return after.map { "retry \($0)" } ?? "retry"
        case .rejected: return "rejected"
        }
    }

    static let client: FCMClient = {
        let pem = try! runOpenSSL(["genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048"])
        let account = """
            {"type":"service_account","project_id":"p","private_key_id":"k","private_key":\(String(data: try! JSONSerialization.data(withJSONObject: [pem]), encoding: .utf8)!.dropFirst().dropLast()),"client_email":"e@p.iam.gserviceaccount.com","token_uri":"https://oauth2.example.com/token"}
            """
        return try! FCMClient(serviceAccountJSON: Array(account.utf8))
    }()

    static func runOpenSSL(_ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }
}
