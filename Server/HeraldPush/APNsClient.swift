import HeraldCrypto
import HeraldProtocol
import HeraldStoreProtocol
import Synchronization

/// Apple Push Notification service, provider API over HTTP/2 with token-based authentication.
///
/// Each request carries `authorization: bearer <JWT>`: ES256 with the team's `.p8` key, `kid` the key id, `iss` the team
/// id, `iat` the issue time. Apple refuses tokens older than an hour and throttles ones made more often than every 20
/// minutes, so one token is reused for 50 minutes, and made anew when APNs says it expired.
///
/// An alert is `apns-push-type: alert` at priority 10 with `apns-collapse-id` the message id; a withdrawal is a
/// background push (`content-available`, priority 5, as Apple requires) that the app uses to remove the delivered
/// notification with that id.
public final class APNsClient: PushProviderClient {
    public let provider = PushProvider.apns
    private let key: P256PrivateKey
    private let keyID: String
    private let teamID: String
    /// Overrides both environments (tests, a proxy); nil: Apple's production or sandbox host by the target's flag.
    private let baseURL: String?
    private let token = Mutex<(jwt: String, issuedAt: Int64)?>(nil)

    static let productionURL = "https://api.push.apple.com"
    static let sandboxURL = "https://api.sandbox.push.apple.com"
    /// How long a provider token is reused (Apple: valid for an hour, refresh no more often than every 20 minutes).
    static let tokenLifetimeSeconds: Int64 = 50 * 60

    public init(keyPEM: String, keyID: String, teamID: String, baseURL: String? = nil) throws(PushConfigurationError) {
        do { key = try P256PrivateKey(pem: keyPEM) } catch { throw PushConfigurationError("the APNs key is not a P-256 private key (.p8 PEM): \(error)") }
        guard keyID.utf8.count == 10, teamID.utf8.count == 10 else {
            throw PushConfigurationError("--apns-key-id and --apns-team-id are the 10-character ids from Apple's developer account")
        }
        self.keyID = keyID
        self.teamID = teamID
        self.baseURL = baseURL
    }

    /// The provider token, made anew after ``tokenLifetimeSeconds`` or after APNs refused it.
    func providerToken(now: Int64) throws(PushProviderError) -> String {
        let seconds = now / 1_000
        if let cached = token.withLock({ $0 }), seconds - cached.issuedAt < Self.tokenLifetimeSeconds { return cached.jwt }
        do {
            let jwt = try JWTSigner.es256(claims: ["iss": .string(teamID), "iat": .int(seconds)], keyID: keyID, key: key)
            token.withLock { $0 = (jwt, seconds) }
            return jwt
        } catch {
            throw PushProviderError(.credentialsUnavailable, "cannot sign the APNs provider token: \(error)")
        }
    }

    public func request(for delivery: PushDeliveryRecord, now: Int64, send: (OutboundRequest) -> Result<HTTPResponse, TransferError>) throws(PushProviderError)
        -> OutboundRequest
    {
        let target = delivery.target
        guard let topic = target.topic else { throw PushProviderError(.unsendable, "the APNs target has no topic") }
        let base = baseURL ?? (target.sandbox ? Self.sandboxURL : Self.productionURL)
        let isAlert = delivery.kind != .withdraw
        var headers: [(name: String, value: String)] = [
            ("authorization", "bearer \(try providerToken(now: now))"), ("apns-topic", topic),
            ("apns-push-type", isAlert ? "alert" : "background"), ("apns-priority", isAlert ? "10" : "5"),
            ("apns-expiration", String(delivery.expiresAt / 1_000)), ("content-type", "application/json"),
        ]
        if isAlert, let collapse = PushPayload.collapseID(of: delivery), collapse.utf8.count <= 64 { headers.append(("apns-collapse-id", collapse)) }
        return OutboundRequest(url: "\(base)/3/device/\(target.token)", headers: headers, body: Array(Self.payload(for: delivery).text.utf8), requiresHTTP2: true)
    }

    /// The `aps` dictionary Apple reads, and ours beside it for the app.
    static func payload(for delivery: PushDeliveryRecord) -> JSONValue {
        var aps: [JSONField]
        if delivery.kind == .withdraw {
            // Apple: a background notification's aps holds content-available and nothing shown (no alert, sound or
            // badge); the app reads the badge from our fields and sets it while it removes the notification.
            aps = [JSONField("content-available", 1)]
        } else {
            aps = [
                JSONField("alert", .object(["title": .string(delivery.title), "body": .string(delivery.body)])),
                JSONField("badge", .number(delivery.badge)),
            ]
            // N3: quiet hours: no sound, and "passive" puts it in the notification list without lighting the screen.
            if delivery.quiet {
                aps.append(JSONField("interruption-level", "passive"))
            } else {
                aps.append(JSONField("sound", "default"))
            }
            // Grouped by conversation only where the push may name it (not with an opaque reference).
            if delivery.reference == nil, let conversation = delivery.conversation { aps.append(JSONField("thread-id", .string(conversation))) }
        }
        return .object([JSONField("aps", .object(aps)), JSONField("herald", .object(PushPayload.fields(of: delivery)))])
    }

    public func outcome(of response: HTTPResponse, for delivery: PushDeliveryRecord) -> DeliveryOutcome {
        let reason = Self.reason(in: response.body)
        switch response.status {
        case 200: return .accepted
        // The token is no longer valid for the topic (the app was uninstalled).
        case 410: return .targetGone(reason: "APNs: \(reason ?? "Unregistered")")
        case 400 where reason == "BadDeviceToken" || reason == "DeviceTokenNotForTopic":
            return .targetGone(reason: "APNs: \(reason ?? "")")
        case 403 where reason == "ExpiredProviderToken" || reason == "InvalidProviderToken":
            return .refreshCredentials(reason: "APNs: \(reason ?? "")")
        case 429, 500, 503: return .retry(after: response.retryAfter, reason: "APNs \(response.status): \(reason ?? "")")
        default: return .rejected(reason: "APNs \(response.status): \(reason ?? "no reason")")
        }
    }

    /// `{"reason":"BadDeviceToken"}`, Apple's error body.
    static func reason(in body: [UInt8]) -> String? {
        guard case .string(let reason)? = JSONValue.parse(body)?["reason"] else { return nil }
        return reason
    }

    public func invalidateCredentials() {
        token.withLock { $0 = nil }
    }
}
