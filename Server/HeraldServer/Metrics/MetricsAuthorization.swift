/// The bearer token `GET /metrics` requires when `--metrics-token-file` is set.
///
/// Both the expected and the presented token are compared as HMAC-SHA256 digests under a key drawn at start: the
/// digests have one length whatever the tokens' lengths, and ``Crypto/constantTimeEqual(_:_:)`` takes the same time
/// wherever they differ, so timing tells a prober neither the token's length nor how much of a guess was right.
struct MetricsAuthorization: Sendable {
    private let key: [UInt8]
    private let expectedDigest: [UInt8]

    /// - Parameter token: the token from the file (already trimmed and checked non-empty).
    init(token: String) {
        key = Crypto.randomBytes(32)
        expectedDigest = Crypto.hmacSHA256(key: key, message: Array(token.utf8))
    }

    /// Whether `authorization` (the request's Authorization header) is `Bearer <the token>`; the scheme is
    /// case-insensitive (RFC 9110 §11.1), the token exact.
    func permits(_ authorization: String?) -> Bool {
        guard let authorization else { return false }
        let bytes = Array(authorization.utf8)
        let scheme = Array("bearer ".utf8)
        guard bytes.count > scheme.count, bytes.prefix(scheme.count).map({ $0 | 0x20 }) == scheme else { return false }
        var token = bytes[scheme.count...]
        while token.first == UInt8(ascii: " ") { token = token.dropFirst() }
        while token.last == UInt8(ascii: " ") { token = token.dropLast() }
        return Crypto.constantTimeEqual(Crypto.hmacSHA256(key: key, message: Array(token)), expectedDigest)
    }
}
