import Foundation

/// The credentials of an `Authorization: Bearer <token>` header (RFC 6750 §2.1), read the same way for /sync tokens,
/// API keys and the metrics token: the scheme is case-insensitive (RFC 9110 §11.1) and spaces around the token are
/// ignored; nil for a missing header, another scheme or an empty token.
enum BearerToken {
    static func from(authorization: String?) -> String? {
        guard let authorization else { return nil }
        let parts = authorization.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
        let token = parts[1].trimmingCharacters(in: .whitespaces)
        return token.isEmpty ? nil : token
    }
}
