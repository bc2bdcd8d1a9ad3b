import HeraldCrypto
import HeraldProtocol
import HeraldStoreProtocol

/// A browser's push service: RFC 8030 delivery (TTL, Urgency, Topic), the payload encrypted for the subscription
/// (RFC 8291, `aes128gcm` of RFC 8188), and the server identified by VAPID (RFC 8292).
///
/// A withdrawal goes with the same Topic as its alert: a push service still holding the alert replaces it (the
/// device never sees it), and a service worker that showed it closes the notification the payload names.
public final class WebPushClient: PushProviderClient {
    public let provider = PushProvider.webpush
    private let key: P256PrivateKey
    private let subject: String

    /// - Parameters:
    ///   - vapidKeyPEM: the server's P-256 key (PEM); its public half is the `applicationServerKey` apps subscribe with.
    ///   - subject: a `mailto:` or `https:` contact for the push service's operators (RFC 8292 §2.1).
    public init(vapidKeyPEM: String, subject: String) throws(PushConfigurationError) {
        do { key = try P256PrivateKey(pem: vapidKeyPEM) } catch { throw PushConfigurationError("the VAPID key is not a P-256 private key in PEM: \(error)") }
        guard subject.hasPrefix("mailto:") || subject.hasPrefix("https://") else {
            throw PushConfigurationError("--vapid-subject must be a mailto: or https: URI (RFC 8292 §2.1)")
        }
        self.subject = subject
    }

    /// The public key browsers subscribe with (`applicationServerKey`), base64url.
    public var applicationServerKey: String { Base64URL.encode(key.publicKey) }

    public func request(for delivery: PushDeliveryRecord, now: Int64, send: (OutboundRequest) -> Result<HTTPResponse, TransferError>) throws(PushProviderError)
        -> OutboundRequest
    {
        let target = delivery.target
        guard let p256dh = target.p256dh.flatMap(Base64URL.decode), let auth = target.auth.flatMap(Base64URL.decode) else {
            throw PushProviderError(.unsendable, "the subscription's keys are not base64url")
        }
        let plaintext = Array(JSONValue.object(PushPayload.fields(of: delivery)).text.utf8)
        let body: [UInt8]
        let authorization: String
        do {
            body = try WebPushEncryption.encrypt(plaintext, receiverPublicKey: p256dh, authSecret: auth)
            // RFC 8292 §2: at most 24 hours ahead; 12 leaves room for clock skew.
            authorization = try VAPID.authorization(endpoint: target.token, subject: subject, expiresAt: now / 1_000 + 12 * 3_600, key: key)
        } catch {
            throw PushProviderError(.unsendable, "cannot encrypt for this subscription: \(error)")
        }
        var headers: [(name: String, value: String)] = [
            ("TTL", String(PushPayload.timeToLiveSeconds(of: delivery, now: now))),
            // RFC 8030 §5.3: an alert may wake the device; a withdrawal can wait for it to be awake anyway.
            // N3: a quiet alert need not wake the device either; the payload's `quiet` tells the worker to show it silently.
            ("Urgency", delivery.kind == .withdraw || delivery.quiet ? "normal" : "high"),
            ("Content-Encoding", "aes128gcm"), ("Content-Type", "application/octet-stream"), ("Authorization", authorization),
        ]
        // RFC 8030 §5.4: a Topic is at most 32 base64url characters; message and notification ids fit.
        if let topic = PushPayload.collapseID(of: delivery), topic.utf8.count <= 32 { headers.append(("Topic", topic)) }
        return OutboundRequest(url: target.token, headers: headers, body: body)
    }

    public func outcome(of response: HTTPResponse, for delivery: PushDeliveryRecord) -> DeliveryOutcome {
        switch response.status {
        case 200..<300: .accepted
        // RFC 8030 §7.3 and every browser's service: the subscription expired or was removed.
        case 404, 410: .targetGone(reason: "the push service answered \(response.status): subscription gone")
        case 429, 500..<600: .retry(after: response.retryAfter, reason: "the push service answered \(response.status)")
        default: .rejected(reason: "the push service answered \(response.status): \(String(decoding: response.body.prefix(200), as: UTF8.self))")
        }
    }

    public func invalidateCredentials() {}
}
