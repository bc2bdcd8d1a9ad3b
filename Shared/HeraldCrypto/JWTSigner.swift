/// Compact JWS tokens (RFC 7515 §7.1): `base64url(header).base64url(claims).base64url(signature)`, for the push
/// providers' authentication: APNs provider tokens and VAPID (ES256), Google service-account assertions (RS256).
public enum JWTSigner {
    /// An ES256 token. The header is `{"alg":"ES256"}` plus `"typ"` and `"kid"` when given: APNs wants
    /// `kid` = the key's ID and no `typ`; VAPID (RFC 8292 §2) uses `typ` = `"JWT"` and no `kid`.
    public static func es256(claims: JWTClaims, keyID: String? = nil, type: String? = nil, key: P256PrivateKey) throws(CryptoError) -> String {
        try compact(algorithm: "ES256", type: type, keyID: keyID, claims: claims) { input throws(CryptoError) in
            try key.signES256(input)
        }
    }

    /// An RS256 token (RSASSA-PKCS1-v1_5 with SHA-256). The header is `{"alg":"RS256","typ":"JWT"}` by default
    /// (Google's OAuth 2.0 service-account flow), plus `"kid"` when given (the service account's `private_key_id`).
    public static func rs256(claims: JWTClaims, keyID: String? = nil, type: String? = "JWT", key: RSAPrivateKey) throws(CryptoError) -> String {
        try compact(algorithm: "RS256", type: type, keyID: keyID, claims: claims) { input throws(CryptoError) in
            try key.signRS256(input)
        }
    }

    /// Encodes header and claims, signs the ASCII signing input (RFC 7515 §5.1) and joins the three parts.
    static func compact(
        algorithm: String, type: String?, keyID: String?, claims: JWTClaims,
        sign: ([UInt8]) throws(CryptoError) -> [UInt8]
    ) throws(CryptoError) -> String {
        var header: JWTClaims = ["alg": .string(algorithm)]
        if let type { header.append("typ", .string(type)) }
        if let keyID { header.append("kid", .string(keyID)) }
        let signingInput = Base64URL.encode(Array(try header.json().utf8)) + "." + Base64URL.encode(Array(try claims.json().utf8))
        return signingInput + "." + Base64URL.encode(try sign(Array(signingInput.utf8)))
    }
}
