import Foundation
import HeraldProtocol
import HeraldWebSocket

/// A `/sync` upgrade that passed authentication.
public struct AuthorizedUpgrade: Sendable, Equatable {
    /// The verified token's claims (user id and name).
    public var claims: TokenClaims
    /// The subprotocol to select: `herald.v1` when offered, nil when the client offered none.
    public var subprotocol: String?
    /// The device name from the `device` query parameter, if valid; names the device in the push outbox.
    public var deviceName: String?
}

/// Why a `/sync` upgrade was refused: an HTTP status and a short body.
public struct UpgradeRefusal: Error, Sendable, Equatable {
    public var status: Int
    public var message: String
}

/// Decides `/sync` upgrades: a valid, unexpired HS256 token in `Authorization: Bearer` or `?token=`,
/// and the `herald.v1` subprotocol when the client offers any.
public struct SyncUpgradeAuthorizer: Sendable {
    let keys: SigningKeys

    /// - Parameter keys: the accepted signing keys (see ``SigningSecret``).
    public init(keys: SigningKeys) {
        self.keys = keys
    }

    /// One key that signs and verifies.
    public init(secret: [UInt8]) {
        self.init(keys: SigningKeys(single: secret))
    }

    /// Checks one upgrade request. Pure: no IO, time comes in.
    ///
    /// - Parameters:
    ///   - head: the upgrade request.
    ///   - now: seconds since the epoch.
    public func authorize(_ head: HTTPRequestHead, now: Int64) -> Result<AuthorizedUpgrade, UpgradeRefusal> {
        guard let token = Self.token(in: head) else {
            return .failure(UpgradeRefusal(status: 401, message: "missing token: send Authorization: Bearer <token> or ?token="))
        }
        let claims: TokenClaims
        switch JSONWebToken.verify(token, keys: keys, now: now) {
        case .success(let verified): claims = verified
        case .failure(let error): return .failure(UpgradeRefusal(status: 401, message: "\(error)"))
        }
        let offered = head.headers.listValues(for: "Sec-WebSocket-Protocol")
        var subprotocol: String?
        if !offered.isEmpty {
            guard offered.contains(HeraldProtocolVersion.subprotocol) else {
                return .failure(UpgradeRefusal(status: 400, message: "unsupported subprotocol: this server speaks \(HeraldProtocolVersion.subprotocol)"))
            }
            subprotocol = HeraldProtocolVersion.subprotocol
        }
        // A token minted for one device names it; the query cannot rename it (sign-out by device relies on that).
        let queried = head.query["device"].flatMap(Self.validDeviceName)
        if let bound = claims.dev, let queried, queried != bound {
            return .failure(UpgradeRefusal(status: 401, message: "this token is for device '\(bound)'"))
        }
        return .success(AuthorizedUpgrade(claims: claims, subprotocol: subprotocol, deviceName: claims.dev ?? queried))
    }

    /// The bearer token from the Authorization header, else the `token` query parameter.
    static func token(in head: HTTPRequestHead) -> String? {
        if let token = BearerToken.from(authorization: head.headers["Authorization"]) { return token }
        if let token = head.query["token"], !token.isEmpty { return token }
        return nil
    }

    /// A device name is ``Identifiers/isDeviceName(_:)``; anything else is ignored.
    static func validDeviceName(_ name: String) -> String? {
        Identifiers.isDeviceName(name) ? name : nil
    }
}
