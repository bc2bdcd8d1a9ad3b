import Foundation
import HeraldCrypto
import HeraldProtocol

/// The claims of a Herald access token.
public struct TokenClaims: Codable, Sendable, Equatable {
    /// The user id.
    public var sub: String
    /// The user's display name.
    public var name: String
    /// Issued at, seconds since the epoch.
    public var iat: Int64
    /// Expires at, seconds since the epoch.
    public var exp: Int64
    /// The device the token was minted for, if any: it connects under this name, and signing that device out
    /// refuses it. nil: any device (named by the `device` query parameter).
    public var dev: String?

    public init(sub: String, name: String, iat: Int64, exp: Int64, dev: String? = nil) {
        self.sub = sub
        self.name = name
        self.iat = iat
        self.exp = exp
        self.dev = dev
    }

    /// Milliseconds from `now` (milliseconds since the epoch) until the token expires: 0 once it has. A signed token
    /// may put `exp` as far off as it likes (Int64.max for "never"), so the product saturates instead of trapping, and
    /// the result stays far enough from Int64.max that a caller can add it to a monotonic clock reading.
    public func millisecondsLeft(now: Int64) -> Int64 {
        let (expiresAt, overflow) = exp.multipliedReportingOverflow(by: 1000)
        let farthest = Int64.max / 4
        guard !overflow, expiresAt < farthest else { return max(farthest &- max(now, 0), 0) }
        return min(max(expiresAt &- now, 0), farthest)
    }
}

/// Why a token was refused.
public enum TokenError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Not three base64url segments of JSON, or a claim is missing or has the wrong type.
    case malformed(String)
    /// The header names an algorithm other than HS256 (including `none`).
    case unsupportedAlgorithm(String)
    /// The signature does not match the server's secret.
    case badSignature
    /// `exp` is not after now.
    case expired
    /// `iat` is later than now plus ``JSONWebToken/clockSkewSeconds``: minted by a clock that is wrong, or forged to
    /// look fresh after a sign-out.
    case issuedInTheFuture

    public var description: String {
        switch self {
        case .malformed(let why): "malformed token: \(why)"
        case .unsupportedAlgorithm(let alg): "unsupported token algorithm '\(alg.prefix(32))'"
        // The usual cause: a token minted on another database (each generates its own secret) or with another --secret.
        case .badSignature: "bad token signature: this server's secret did not sign it (minted on another database or with another secret?)"
        case .expired: "token expired"
        case .issuedInTheFuture: "token issued in the future"
        }
    }
}

/// HS256 JSON Web Tokens (RFC 7519 with RFC 7515 compact serialization), signed with HMAC-SHA256.
public enum JSONWebToken {
    /// The fixed header of every token this server issues.
    public static let header = #"{"alg":"HS256","typ":"JWT"}"#
    /// Longest token accepted; anything longer is refused before any work.
    public static let maxLength = 4096
    /// How far a token's issue time may be ahead of this server's clock: ``TokenTimes/clockSkewSeconds``.
    public static let clockSkewSeconds: Int64 = TokenTimes.clockSkewSeconds

    /// Signs `claims` with `secret`: `base64url(header).base64url(claims).base64url(HMAC-SHA256)`.
    public static func sign(_ claims: TokenClaims, secret: [UInt8]) -> String {
        sign(claims, header: header, secret: secret)
    }

    private static func sign(_ claims: TokenClaims, header: String, secret: [UInt8]) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let payload = (try? encoder.encode(claims)).map { Array($0) } ?? []
        let signingInput = Base64URL.encode(Array(header.utf8)) + "." + Base64URL.encode(payload)
        let signature = HMACSHA256.mac(key: secret, message: Array(signingInput.utf8))
        return signingInput + "." + Base64URL.encode(signature)
    }

    /// Signs `claims` with the signing key of `keys`, naming it in the header (`kid`) so verifiers pick the right key.
    public static func sign(_ claims: TokenClaims, keys: SigningKeys) -> String {
        let header = #"{"alg":"HS256","kid":"\#(keys.signingID)","typ":"JWT"}"#
        return sign(claims, header: header, secret: keys.signing)
    }

    /// Verifies with whichever accepted key the header's `kid` names (every key when it names none): see
    /// ``verify(_:secret:now:)``.
    public static func verify(_ token: String, keys: SigningKeys, now: Int64) -> Result<TokenClaims, TokenError> {
        verify(token, candidates: keys.candidates(for:), now: now)
    }

    /// A token's header: its algorithm and the key it names.
    private struct Header: Decodable {
        var alg: String
        var kid: String?

        private static let plain = Array(JSONWebToken.header.utf8)
        private static let keyedPrefix = Array(#"{"alg":"HS256","kid":""#.utf8)
        private static let keyedSuffix = Array(#"","typ":"JWT"}"#.utf8)

        /// The header as JSON. The two headers this server writes are recognised byte for byte first (a key id is
        /// `Identifiers`-safe, never escaped), which spares a JSONDecoder per /sync upgrade; anything else is decoded.
        static func parse(_ bytes: [UInt8]) -> Header? {
            if bytes == plain { return Header(alg: "HS256", kid: nil) }
            if bytes.count > keyedPrefix.count + keyedSuffix.count, bytes.starts(with: keyedPrefix), bytes.suffix(keyedSuffix.count).elementsEqual(keyedSuffix) {
                let id = bytes[keyedPrefix.count..<(bytes.count - keyedSuffix.count)]
                if id.allSatisfy({ $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "\\") && $0 >= 0x20 && $0 < 0x7F }) {
                    return Header(alg: "HS256", kid: String(decoding: id, as: UTF8.self))
                }
            }
            return try? JSONDecoder().decode(Header.self, from: Data(bytes))
        }
    }

    /// Verifies the signature in constant time, then the header's algorithm and the expiry.
    ///
    /// - Parameters:
    ///   - token: the compact token.
    ///   - secret: the signing secret.
    ///   - now: seconds since the epoch; the token must expire strictly after it.
    public static func verify(_ token: String, secret: [UInt8], now: Int64) -> Result<TokenClaims, TokenError> {
        verify(token, candidates: { _ in [secret] }, now: now)
    }

    private static func verify(_ token: String, candidates: (String?) -> [[UInt8]], now: Int64) -> Result<TokenClaims, TokenError> {
        guard token.utf8.count <= maxLength else { return .failure(.malformed("longer than \(maxLength) bytes")) }
        // The segments are found by their bytes: splitting the String by Character (grapheme breaking) was a quarter
        // of a /sync upgrade. A dot that a combining mark follows is a segment boundary here, and the segment after it
        // is then not base64url: malformed either way.
        let utf8 = token.utf8
        guard let firstDot = utf8.firstIndex(of: UInt8(ascii: ".")),
              let secondDot = utf8[utf8.index(after: firstDot)...].firstIndex(of: UInt8(ascii: ".")),
              !utf8[utf8.index(after: secondDot)...].contains(UInt8(ascii: "."))
        else { return .failure(.malformed("expected three segments")) }
        guard let headerBytes = Base64URL.decode(utf8: utf8[..<firstDot]),
              let payloadBytes = Base64URL.decode(utf8: utf8[utf8.index(after: firstDot)..<secondDot]),
              let signature = Base64URL.decode(utf8: utf8[utf8.index(after: secondDot)...])
        else { return .failure(.malformed("segment is not base64url")) }

        guard let parsedHeader = Header.parse(headerBytes) else { return .failure(.malformed("header is not JSON with 'alg'")) }
        guard parsedHeader.alg == "HS256" else { return .failure(.unsupportedAlgorithm(parsedHeader.alg)) }

        let signingInput = Array(utf8[..<secondDot])
        // Every candidate is compared (no early exit), so timing does not tell which key matched.
        var matched = false
        for key in candidates(parsedHeader.kid) where ConstantTime.equal(HMACSHA256.mac(key: key, message: signingInput), signature) {
            matched = true
        }
        guard matched else { return .failure(.badSignature) }

        guard let claims = try? JSONDecoder().decode(TokenClaims.self, from: Data(payloadBytes)) else {
            return .failure(.malformed("claims need string sub, name and integer iat, exp"))
        }
        // The same identity rule as minting, the API and requests: a signed token is no exemption.
        guard Identifiers.isUserId(claims.sub) else { return .failure(.malformed("sub must be \(Identifiers.userIdRule)")) }
        guard Identifiers.isDisplayName(claims.name) else { return .failure(.malformed("name must be \(Identifiers.displayNameRule)")) }
        if let device = claims.dev, !Identifiers.isDeviceName(device) {
            return .failure(.malformed("dev must be \(Identifiers.deviceNameRule)"))
        }
        guard claims.exp > now else { return .failure(.expired) }
        guard claims.iat <= now + clockSkewSeconds else { return .failure(.issuedInTheFuture) }
        return .success(claims)
    }
}
