/// Voluntary Application Server Identification (RFC 8292): the `Authorization` header that tells a push service
/// which application server sends, signed with the key the subscription was created for.
public enum VAPID {
    /// RFC 8292 §2: an `exp` more than 24 hours ahead "MUST" be refused by push services.
    public static let maximumLifetimeSeconds: Int64 = 24 * 60 * 60

    /// The `Authorization` header value for a push to `endpoint`:
    /// `vapid t=<JWT>, k=<base64url of the 65-byte public key>` (RFC 8292 §3), where the JWT has the header
    /// `{"alg":"ES256","typ":"JWT"}` and the claims `aud` (the endpoint's origin), `exp` and `sub`.
    ///
    /// - Parameters:
    ///   - endpoint: the subscription's push endpoint URL (https).
    ///   - subject: a contact for the push service's operator: a `mailto:` or `https:` URI (RFC 8292 §2.1).
    ///   - expiresAt: `exp`, in Unix seconds. RFC 8292 allows at most 24 hours from now; this function reads no
    ///     clock, so keeping within that is the caller's job (see ``maximumLifetimeSeconds``).
    ///   - key: the application server's VAPID key.
    /// - Throws: `.invalidArgument` when the endpoint has no http(s) origin, the subject is neither `mailto:` nor
    ///   `https:`, or `expiresAt` is not positive.
    public static func authorization(endpoint: String, subject: String, expiresAt: Int64, key: P256PrivateKey) throws(CryptoError) -> String {
        guard let audience = audience(of: endpoint) else {
            throw CryptoError(.invalidArgument, "the push endpoint has no http(s) origin to use as the VAPID audience")
        }
        let lowercasedSubject = subject.lowercased()
        guard (lowercasedSubject.hasPrefix("mailto:") && subject.utf8.count > 7) || (lowercasedSubject.hasPrefix("https:") && subject.utf8.count > 6) else {
            throw CryptoError(.invalidArgument, "the VAPID subject must be a mailto: or https: URI")
        }
        guard expiresAt > 0 else { throw CryptoError(.invalidArgument, "the VAPID expiry must be a positive Unix time") }
        let token = try JWTSigner.es256(claims: ["aud": .string(audience), "exp": .int(expiresAt), "sub": .string(subject)], type: "JWT", key: key)
        return "vapid t=\(token), k=\(Base64URL.encode(key.publicKey))"
    }
}
