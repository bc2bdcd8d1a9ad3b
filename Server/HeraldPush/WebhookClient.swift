import HeraldCrypto
import HeraldProtocol
import HeraldStoreProtocol

/// The app's own push backend: a JSON POST to one URL, signed the way payment providers sign theirs, so the receiver
/// knows it came from this server and is fresh: `Herald-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret,
/// "<t>.<body>")>`. The receiver recomputes the MAC over the raw body and refuses old timestamps (replays).
public final class WebhookClient: PushProviderClient {
    public let provider = PushProvider.webhook
    private let url: String
    private let secret: [UInt8]

    public init(url: String, secret: [UInt8]) throws(PushConfigurationError) {
        guard url.hasPrefix("https://") || url.hasPrefix("http://") else { throw PushConfigurationError("--webhook-url must be an http(s) URL") }
        guard secret.count >= 16 else { throw PushConfigurationError("the webhook secret must be at least 16 bytes") }
        self.url = url
        self.secret = secret
    }

    public func request(for delivery: PushDeliveryRecord, now: Int64, send: (OutboundRequest) -> Result<HTTPResponse, TransferError>) throws(PushProviderError)
        -> OutboundRequest
    {
        let target = delivery.target
        // With an opaque reference, not even the recipient's user and device names: the token is the app's own id for
        // the device, all its backend needs to reach it.
        let recipient =
            delivery.reference == nil ? [JSONField("user", .string(target.user)), JSONField("device", .string(target.device))] : []
        let fields = [JSONField("id", .int(delivery.id))] + recipient + [JSONField("token", .string(target.token))] + PushPayload.fields(of: delivery)
        let body = Array(JSONValue.object(fields).text.utf8)
        return OutboundRequest(
            url: url,
            headers: [
                ("Content-Type", "application/json"), ("Herald-Signature", Self.signature(body: body, secret: secret, time: now / 1_000)),
                ("Herald-Delivery", String(delivery.id)),
            ],
            body: body)
    }

    /// `t=<time>,v1=<hex MAC>` over `"<time>." + body`.
    static func signature(body: [UInt8], secret: [UInt8], time: Int64) -> String {
        let signed = Array("\(time).".utf8) + body
        return "t=\(time),v1=\(HMACSHA256.hexMAC(key: secret, message: signed))"
    }

    public func outcome(of response: HTTPResponse, for delivery: PushDeliveryRecord) -> DeliveryOutcome {
        switch response.status {
        case 200..<300: .accepted
        case 410: .targetGone(reason: "the app's backend answered 410 Gone")
        case 408, 425, 429, 500..<600: .retry(after: response.retryAfter, reason: "webhook answered \(response.status)")
        default: .rejected(reason: "webhook answered \(response.status)")
        }
    }

    public func invalidateCredentials() {}
}
