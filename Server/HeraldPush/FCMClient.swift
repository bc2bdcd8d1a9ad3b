import HeraldCrypto
import HeraldProtocol
import HeraldStoreProtocol
import Synchronization

/// Firebase Cloud Messaging, HTTP v1 API, authorised with OAuth 2.0 access tokens from a service account.
///
/// The token comes from the account's `token_uri` by the JWT bearer grant (RFC 7523): an RS256 assertion signed with the
/// account's key, `scope` FCM's. It is cached until a minute before it expires, and fetched anew when FCM answers 401.
/// An alert is a notification message with our data beside it; a withdrawal a data-only message the app handles.
public final class FCMClient: PushProviderClient {
    public let provider = PushProvider.fcm
    private let account: ServiceAccount
    private let baseURL: String
    private let accessToken = Mutex<(token: String, expiresAt: Int64)?>(nil)

    static let defaultURL = "https://fcm.googleapis.com"
    static let scope = "https://www.googleapis.com/auth/firebase.messaging"

    /// A Google service-account key file's fields this client uses.
    struct ServiceAccount {
        var projectID: String
        var clientEmail: String
        var tokenURI: String
        var key: RSAPrivateKey
    }

    /// - Parameters:
    ///   - serviceAccountJSON: the service-account key file as Google's console downloads it.
    ///   - baseURL: FCM's host (tests point it at a stand-in).
    public init(serviceAccountJSON: [UInt8], baseURL: String? = nil) throws(PushConfigurationError) {
        guard let file = JSONValue.parse(serviceAccountJSON) else { throw PushConfigurationError("the FCM service-account file is not JSON") }
        func field(_ name: String) throws(PushConfigurationError) -> String {
            guard let value = file[name]?.string, !value.isEmpty else {
                throw PushConfigurationError("the FCM service-account file has no '\(name)'")
            }
            return value
        }
        let key: RSAPrivateKey
        do { key = try RSAPrivateKey(pem: try field("private_key")) } catch let error as PushConfigurationError { throw error } catch {
            throw PushConfigurationError("the FCM service account's private_key is not an RSA key in PEM: \(error)")
        }
        account = ServiceAccount(projectID: try field("project_id"), clientEmail: try field("client_email"), tokenURI: try field("token_uri"), key: key)
        self.baseURL = baseURL ?? Self.defaultURL
    }

    /// A valid access token: the cached one, or a new one from the token endpoint.
    func token(now: Int64, send: (OutboundRequest) -> Result<HTTPResponse, TransferError>) throws(PushProviderError) -> String {
        if let cached = accessToken.withLock({ $0 }), now < cached.expiresAt { return cached.token }
        let seconds = now / 1_000
        let assertion: String
        do {
            assertion = try JWTSigner.rs256(
                claims: [
                    "iss": .string(account.clientEmail), "scope": .string(Self.scope), "aud": .string(account.tokenURI), "iat": .int(seconds),
                    "exp": .int(seconds + 3_600),
                ],
                key: account.key)
        } catch {
            throw PushProviderError(.credentialsUnavailable, "cannot sign the FCM token request: \(error)")
        }
        let form = "grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer&assertion=\(assertion)"
        let request = OutboundRequest(url: account.tokenURI, headers: [("Content-Type", "application/x-www-form-urlencoded")], body: Array(form.utf8))
        switch send(request) {
        case .failure(let error):
            throw PushProviderError(.credentialsUnavailable, "FCM token endpoint unreachable: \(error)")
        case .success(let response):
            guard response.status == 200, let answer = JSONValue.parse(response.body), let token = answer["access_token"]?.string else {
                throw PushProviderError(
                    .credentialsUnavailable,
                    "FCM token endpoint answered \(response.status): \(String(decoding: response.body.prefix(200), as: UTF8.self))")
            }
            // A minute early, so a token never expires between this check and FCM reading it.
            // `expires_in` is the token endpoint's word: bounded to a day (Google's are an hour) before any arithmetic.
            let lifetime = min(max(answer["expires_in"]?.integer ?? 3_600, 61), 86_400)
            let (expiresAt, overflow) = now.addingReportingOverflow((lifetime - 60) * 1_000)
            accessToken.withLock { $0 = (token, overflow ? now : expiresAt) }
            return token
        }
    }

    public func request(for delivery: PushDeliveryRecord, now: Int64, send: (OutboundRequest) -> Result<HTTPResponse, TransferError>) throws(PushProviderError)
        -> OutboundRequest
    {
        let bearer = try token(now: now, send: send)
        return OutboundRequest(
            url: "\(baseURL)/v1/projects/\(account.projectID)/messages:send",
            headers: [("Authorization", "Bearer \(bearer)"), ("Content-Type", "application/json; charset=UTF-8")],
            body: Array(Self.message(for: delivery, now: now).text.utf8))
    }

    /// N3: the Android notification channel a quiet push is posted to. The app creates it (IMPORTANCE_LOW: no sound, no
    /// heads-up banner) before it registers its token.
    public static let quietChannelID = "herald_quiet"

    /// `{"message": {...}}`: FCM's data values must all be strings, and its keys none of FCM's reserved words ("from",
    /// "notification", "message_type", "google…", "gcm…"): a bell push's notification id goes as `notificationId`.
    static func message(for delivery: PushDeliveryRecord, now: Int64) -> JSONValue {
        let data: [JSONField] = PushPayload.fields(of: delivery).map { field in
            let key = field.key == "notification" ? "notificationId" : field.key
            switch field.value {
            case .string: return JSONField(key, field.value)
            case .int(let number): return JSONField(key, .string(String(number)))
            default: return JSONField(key, .string(field.value.text))
            }
        }
        let ttl = JSONValue.string("\(PushPayload.timeToLiveSeconds(of: delivery, now: now))s")
        var message: [JSONField] = [JSONField("token", .string(delivery.target.token)), JSONField("data", .object(data))]
        if delivery.kind == .withdraw {
            message.append(JSONField("android", .object(["priority": "NORMAL", "ttl": ttl])))
        } else {
            message.append(JSONField("notification", .object(["title": .string(delivery.title), "body": .string(delivery.body)])))
            var android: [JSONField] = [JSONField("priority", "HIGH"), JSONField("ttl", ttl)]
            var notification: [JSONField] = [JSONField("notification_count", .number(delivery.badge))]
            var aps: [JSONField] = [JSONField("badge", .number(delivery.badge))]
            // N3: quiet hours: listed without sound or heads-up banner. Android 8+ takes both from the notification's
            // channel (the app creates ``quietChannelID`` at IMPORTANCE_LOW; FCM falls back to the manifest's default
            // channel when it does not); Android 7.1 and lower from `notification_priority` (LOW: listed, silent;
            // MIN could hide it). iOS through FCM: `passive`, as the APNs client sends it.
            if delivery.quiet {
                notification.append(JSONField("channel_id", .string(Self.quietChannelID)))
                notification.append(JSONField("default_sound", false))
                notification.append(JSONField("notification_priority", "PRIORITY_LOW"))
                aps.append(JSONField("interruption-level", "passive"))
            } else {
                aps.append(JSONField("sound", "default"))
            }
            if let collapse = PushPayload.collapseID(of: delivery) {
                android.append(JSONField("collapse_key", .string(collapse)))
                notification.append(JSONField("tag", .string(collapse)))
            }
            android.append(JSONField("notification", .object(notification)))
            message.append(JSONField("android", .object(android)))
            message.append(JSONField("apns", .object(["payload": .object(["aps": .object(aps)])])))
        }
        return .object(["message": .object(message)])
    }

    public func outcome(of response: HTTPResponse, for delivery: PushDeliveryRecord) -> DeliveryOutcome {
        let status = Self.errorStatus(in: response.body)
        switch response.status {
        case 200: return .accepted
        // Every 404 means the token is gone; a 400 only when FCM names it UNREGISTERED (an INVALID_ARGUMENT is the
        // request's fault, not the device's).
        case 404,
             400 where status.code == "UNREGISTERED":
            return .targetGone(reason: "FCM: \(status.code ?? "NOT_FOUND")")
        case 401: return .refreshCredentials(reason: "FCM 401: \(status.status ?? "UNAUTHENTICATED")")
        case 429, 500, 503: return .retry(after: response.retryAfter, reason: "FCM \(response.status): \(status.status ?? "")")
        default: return .rejected(reason: "FCM \(response.status): \(status.status ?? "") \(status.code ?? "")")
        }
    }

    /// The `error.status` and the FcmError `errorCode` of an FCM v1 error body.
    static func errorStatus(in body: [UInt8]) -> (status: String?, code: String?) {
        guard let error = JSONValue.parse(body)?["error"] else { return (nil, nil) }
        var code: String?
        if case .array(let details)? = error["details"] {
            code = details.lazy.compactMap { $0["errorCode"]?.string }.first
        }
        return (error["status"]?.string, code)
    }

    public func invalidateCredentials() {
        accessToken.withLock { $0 = nil }
    }
}
