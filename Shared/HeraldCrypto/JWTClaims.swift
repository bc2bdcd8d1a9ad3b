/// One JWT claim (or header parameter) value: the push providers' tokens use only strings and integers
/// (`iss`, `aud`, `sub`, `scope`; `iat`, `exp`).
public enum JWTClaimValue: Sendable, Hashable, ExpressibleByStringLiteral, ExpressibleByIntegerLiteral {
    /// A JSON string, escaped when encoded.
    case string(String)
    /// A JSON integer, e.g. a NumericDate (seconds since the epoch, RFC 7519 §2).
    case int(Int64)

    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int64) { self = .int(value) }

    /// The value as JSON.
    var json: String {
        switch self {
        case .string(let text): JSONText.quoted(text)
        case .int(let number): String(number)
        }
    }
}

/// A JWT claims set in a fixed order: `["iss": "TEAMID", "iat": 1_700_000_000]`.
///
/// Ordered (a dictionary literal keeps its order here) so a token is reproducible and reads like its source;
/// a name given twice is refused when encoding, because readers disagree on which duplicate wins.
public struct JWTClaims: Sendable, Hashable, ExpressibleByDictionaryLiteral {
    /// The claims, in the order they are written.
    public var names: [String]
    /// The values, parallel to ``names``.
    public var values: [JWTClaimValue]

    /// Claims from name-value pairs, in order.
    public init(_ claims: [(String, JWTClaimValue)]) {
        names = claims.map(\.0)
        values = claims.map(\.1)
    }

    public init(dictionaryLiteral elements: (String, JWTClaimValue)...) {
        self.init(elements)
    }

    /// Appends a claim.
    public mutating func append(_ name: String, _ value: JWTClaimValue) {
        names.append(name)
        values.append(value)
    }

    /// The claims as a compact JSON object; throws `.invalidArgument` for a duplicated name.
    func json() throws(CryptoError) -> String {
        var seen = Set<String>()
        var members: [String] = []
        for (name, value) in zip(names, values) {
            guard seen.insert(name).inserted else { throw CryptoError(.invalidArgument, "JWT member \"\(name)\" is given twice") }
            members.append(JSONText.quoted(name) + ":" + value.json)
        }
        return "{" + members.joined(separator: ",") + "}"
    }
}
