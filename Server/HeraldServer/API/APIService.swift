import Foundation
import HeraldProtocol
import HeraldRules
import HeraldStoreProtocol
import HeraldSync
import HeraldWebSocket
import Logging

/// The backend HTTP API under `/api/v1/`: an app's own server creates users and tokens, conversations, messages
/// and bell notifications, and reads unread counts. Described by `openapi.json` (served at `/api/v1/openapi.json`).
///
/// Every endpoint but `health` and `openapi.json` needs `Authorization: Bearer <API key>` (keys from
/// `herald-server apikey create`); a `read` key may call only the GET endpoints, anything else is 403 `forbidden`.
/// The key is looked up on the sync thread, in the store the sync service owns (a loop thread never waits for the
/// database), on every request, so a revoked key is refused at its next request. Then the operation goes through the
/// sync thread exactly like a client's request (same transaction batching, idempotency and fan-out), and each
/// answer is sent only after its commit.
///
/// ```swift
/// let sync = try SyncService(options: options, server: server, logger: logger)
/// let api = APIService(sync: sync, server: server, options: APIOptions(), logger: logger)   // before server.start()
/// ```
public final class APIService: HTTPRequestHandler {
    public let maxBodySize: Int
    private let sync: SyncService
    private let limiter: APIRateLimiter
    private let started = Date()
    private let logger: Logger
    private let warnings: LimitWarnings

    /// Registers `/api/v1/` on `server`; operations and key lookups go through `sync`.
    public init(sync: SyncService, server: HeraldHTTPServer, options: APIOptions = APIOptions(), logger: Logger) {
        self.sync = sync
        self.limiter = APIRateLimiter(ratePerSecond: options.rateLimitPerSecond, burst: options.rateLimitBurst)
        self.maxBodySize = options.maxBodySize
        self.logger = logger
        self.warnings = server.warnings
        server.addHTTPRoute(prefix: APIRoute.prefix, handler: self)
    }

    public func handle(_ request: HTTPRequest, connection: HTTPConnectionInfo, respond: @escaping @Sendable (HTTPResponse) -> Void) {
        let route: APIRoute
        switch APIRoute.match(method: request.head.method, path: request.head.path) {
        case .success(let matched):
            route = matched
        case .failure(.notFound):
            return respond(APIError(404, "not_found", "no such endpoint").response)
        case .failure(.badPath):
            return respond(APIError.badRequest("malformed path").response)
        case .failure(.methodNotAllowed(let allow)):
            return respond(APIError(405, "method_not_allowed", "use \(allow)", headers: ["Allow": allow]).response)
        }
        switch route {
        case .health:
            let health = APIResponses.Health(
                status: "ok", connections: connection.openConnections, uptimeSeconds: Int64(Date().timeIntervalSince(started)),
                version: HeraldRelease.version)  // the one release both binaries report
            return respond(.json(200, health))
        case .openAPI:
            return respond(HTTPResponse(status: 200, headers: [("Content-Type", "application/json")], body: Array(OpenAPIDocument.json.utf8)))
        default:
            break
        }
        // A malformed key is refused here, without a lookup.
        guard let presented = BearerToken.from(authorization: request.head.headers["Authorization"]), let id = APIKey.id(of: presented) else {
            return refuse(Self.unauthorized, request: request, connection: connection, respond: respond)
        }
        let presentedHash = APIKey.hash(presented)
        // The body is read here, on the loop thread; its error is answered only once the key passed (401, 429 and 403 come first).
        let prepared = Result { () throws(APIError) -> PreparedCall? in try prepare(route, body: request.body) }
        sync.perform(BackendCall(.apiKey(id: id)) { [self] result in
            // On the sync thread, after its batch: only checks and a post, nothing that blocks.
            let stored: APIKeyRecord?
            if case .success(.apiKey(let record)) = result { stored = record } else { stored = nil }
            do throws(APIError) {
                guard let key = APIKey.verify(presentedHash: presentedHash, id: id, stored: stored, now: Int64(Date().timeIntervalSince1970 * 1000))
                else { throw Self.unauthorized }
                if let retryAfter = limiter.take(key: key.id, now: Date().timeIntervalSince1970) {
                    throw APIError(429, "rate_limited", "too many requests for this API key; retry later", headers: ["Retry-After": "\(retryAfter)"])
                }
                guard key.scope.permits(route.requiredScope) else {
                    throw APIError(403, "forbidden", "this API key's scope is \(key.scope.rawValue); this endpoint needs a \(route.requiredScope.rawValue) key")
                }
                guard let prepared = try prepared.get() else { throw APIError(404, "not_found", "no such endpoint") }
                call(prepared, respond: respond)
            } catch {
                refuse(error, request: request, connection: connection, respond: respond)
            }
        })
    }

    /// What every refusal of a key says: the same answer for every reason (missing, malformed, unknown, wrong, expired, revoked).
    private static let unauthorized = APIError(
        401, "unauthorized", "a valid API key is required: Authorization: Bearer <key>", headers: ["WWW-Authenticate": "Bearer"])

    /// Answers `error`, warning (rate-limited) about failed authentication and refused scopes.
    private func refuse(_ error: APIError, request: HTTPRequest, connection: HTTPConnectionInfo, respond: @Sendable (HTTPResponse) -> Void) {
        if error.status == 401 || error.status == 403 {
            warnings.warn(.authenticationFailed, "refused: authentication failed",
                          metadata: ["peer": "\(connection.remoteAddress)", "route": "\(request.head.method) \(request.head.path.prefix(128))",
                                     "status": "\(error.status)", "reason": "\(error.code)"])
        }
        respond(error.response)
    }

    /// A request turned into its backend operation and the way its value is answered.
    private struct PreparedCall: Sendable {
        var operation: BackendOperation
        var render: @Sendable (BackendValue) -> HTTPResponse?
    }

    /// Reads the route's body and path values into the operation it asks for.
    private func prepare(_ route: APIRoute, body: [UInt8]) throws(APIError) -> PreparedCall? {
        switch route {
        case .health, .openAPI:
            return nil  // answered before authentication
        case .createUser:
            return PreparedCall(operation: try APIRequestBodies.createUser(body)) { value in
                guard case .user(let user, let created) = value else { return nil }
                return .json(created ? 201 : 200, APIResponses.User(id: user.id, name: user.name))
            }
        case .user(let id):
            return PreparedCall(operation: .user(id: try APIFieldRules.userId(id, field: "user id"))) { value in
                guard case .user(let user, _) = value else { return nil }
                return .json(200, APIResponses.User(id: user.id, name: user.name))
            }
        case .mintToken(let id):
            let (ttl, device) = try APIRequestBodies.tokenRequest(body)
            let keys = sync.signingKeys
            let operation = BackendOperation.tokenSubject(id: try APIFieldRules.userId(id, field: "user id"), device: device)
            return PreparedCall(operation: operation) { value in
                guard case .tokenSubject(let user, let signedOutUntil) = value else { return nil }
                let now = Int64(Date().timeIntervalSince1970)
                // Dated past the user's latest sign-out, which refuses tokens up to the clock skew ahead of it.
                let issuedAt = TokenTimes.issuedAt(now: now, signedOutUntil: signedOutUntil)
                let claims = TokenClaims(sub: user.id, name: user.name, iat: issuedAt, exp: now + Int64(ttl), dev: device)
                let token = APIResponses.Token(
                    token: JSONWebToken.sign(claims, keys: keys), user: .init(id: user.id, name: user.name), expiresAt: claims.exp)
                return .json(201, token)
            }
        case .createNotification(let user):
            let operation = try APIRequestBodies.createNotification(body, user: try APIFieldRules.userId(user, field: "user id"))
            return PreparedCall(operation: operation) { value in
                guard case .notification(let info, let bellUnread) = value else { return nil }
                return .json(201, APIResponses.CreatedNotification(notification: info, bellUnread: bellUnread, bellBadgeText: BadgeText.text(for: bellUnread)))
            }
        case .unread(let user):
            let id = try APIFieldRules.userId(user, field: "user id")
            return PreparedCall(operation: .unread(user: id)) { value in
                guard case .unread(let counts, let badge, let bellUnread, let latest) = value else { return nil }
                return .json(200, APIResponses.unread(user: id, perConversation: counts, badge: badge, bellUnread: bellUnread, latest: latest))
            }
        case .createConversation:
            return PreparedCall(operation: try APIRequestBodies.createConversation(body)) { value in
                guard case .conversation(let info, let created) = value else { return nil }
                return .json(created ? 201 : 200, APIResponses.conversation(info))
            }
        case .removeMember(let conversation):
            return PreparedCall(operation: try APIRequestBodies.removeMember(body, conversation: conversation)) { value in
                guard case .removed(let conversation, let user) = value else { return nil }
                return .json(200, APIResponses.Removed(conversation: conversation, user: user))
            }
        case .signOut(let user):
            return PreparedCall(operation: try APIRequestBodies.signOut(body, user: try APIFieldRules.userId(user, field: "user id"))) { value in
                guard case .signedOut(let user, let device) = value else { return nil }
                return .json(200, APIResponses.SignedOut(user: user, device: device))
            }
        case .pushTargets(let user):
            return PreparedCall(operation: .pushTargets(user: try APIFieldRules.userId(user, field: "user id"))) { value in
                guard case .pushTargets(let records) = value else { return nil }
                return .json(200, APIResponses.PushTargets(user: user, targets: records.map(APIResponses.PushTarget.init)))
            }
        case .registerPushTarget(let user):
            return PreparedCall(operation: try APIRequestBodies.registerPushTarget(body, user: try APIFieldRules.userId(user, field: "user id"))) { value in
                guard case .pushTarget(let record) = value else { return nil }
                return .json(200, APIResponses.PushTarget(record))
            }
        case .removePushTarget(let user, let device):
            let id = try APIFieldRules.userId(user, field: "user id")
            guard Identifiers.isDeviceName(device) else { throw .badRequest("device must be \(Identifiers.deviceNameRule)") }
            return PreparedCall(operation: .removePushTarget(user: id, device: device)) { value in
                guard case .pushTargetRemoved(let user, let device) = value else { return nil }
                return .json(200, APIResponses.RemovedPushTarget(user: user, device: device))
            }
        case .postMessage(let conversation):
            return PreparedCall(operation: try APIRequestBodies.postMessage(body, conversation: conversation)) { value in
                guard case .message(let info, let duplicate) = value else { return nil }
                return .json(duplicate ? 200 : 201, APIResponses.PostedMessage(message: info, duplicate: duplicate))
            }
        case .renameGroup(let conversation):
            return PreparedCall(operation: try APIRequestBodies.renameGroup(body, conversation: conversation), render: Self.changedGroup)
        case .addMember(let conversation):
            return PreparedCall(operation: try APIRequestBodies.addMember(body, conversation: conversation), render: Self.changedGroup)
        case .editMessage(let id):
            return PreparedCall(operation: try APIRequestBodies.editMessage(body, message: id), render: Self.revisedMessage)
        case .unsendMessage(let id):
            return PreparedCall(operation: try APIRequestBodies.unsendMessage(body, message: id), render: Self.revisedMessage)
        case .mute(let user):
            return PreparedCall(operation: try APIRequestBodies.mute(body, user: try APIFieldRules.userId(user, field: "user id")), render: Self.muteState)
        case .unmute(let user, let conversation):
            let id = try APIFieldRules.userId(user, field: "user id")
            return PreparedCall(operation: .unmute(user: id, conversation: conversation), render: Self.muteState)
        }
    }

    /// Runs the prepared operation on the sync thread and answers with its rendered value, or the failure's error.
    private func call(_ prepared: PreparedCall, respond: @escaping @Sendable (HTTPResponse) -> Void) {
        sync.perform(BackendCall(prepared.operation) { result in
            switch result {
            case .success(let value):
                respond(prepared.render(value) ?? APIError(500, "internal", "unexpected result").response)
            case .failure(let failure):
                respond(Self.error(for: failure).response)
            }
        })
    }

    static func error(for failure: BackendFailure) -> APIError {
        switch failure.kind {
        case .notFound: APIError(404, "not_found", failure.message)
        case .forbidden: APIError(403, "forbidden", failure.message)
        case .conflict: APIError(409, "conflict", failure.message)
        case .badRequest: APIError(400, "bad_request", failure.message)
        case .unavailable: APIError(503, "unavailable", failure.message)
        case .internal: APIError(500, "internal", failure.message)
        case .tooLate: APIError(409, "too_late", failure.message)
        case .tooManyEdits: APIError(409, "too_many_edits", failure.message)
        // RFC 6585 §4: too much in a given amount of time; Retry-After says when the next UTC day renews it.
        case .quotaExceeded:
            APIError(429, "quota_exceeded", failure.message, headers: [
                "Retry-After": "\(StorageQuota.secondsUntilNextDay(now: Int64(Date().timeIntervalSince1970 * 1000)))",
            ])
        }
    }
}
