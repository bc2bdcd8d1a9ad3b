/// The credentials of an `Authorization: Bearer <token>` header (RFC 6750 §2.1), read the same way for /sync tokens,
/// API keys and the metrics token: the scheme is case-insensitive (RFC 9110 §11.1) and spaces around the token are
/// ignored; nil for a missing header, another scheme or an empty token.
enum BearerToken {
    static func from(authorization: String?) -> String? {
        guard let authorization else { return nil }
        let parts = authorization.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
        // Trimmed in Swift, not with Foundation's CharacterSet: that bridged through NSString and was a quarter of
        // a /sync upgrade's instructions.
        let rest = parts[1].drop(while: \.isWhitespace)
        guard let last = rest.lastIndex(where: { !$0.isWhitespace }) else { return nil }
        return String(rest[...last])
    }
}
