import HeraldCrypto
/// The bearer token `GET /metrics` requires when `--metrics-token-file` is set.
///
/// Both the expected and the presented token are compared as HMAC-SHA256 digests under a key drawn at start: the
/// digests have one length whatever the tokens' lengths, and ``ConstantTime/equal(_:_:)`` takes the same time
/// wherever they differ, so timing tells a prober neither the token's length nor how much of a guess was right.
struct MetricsAuthorization: Sendable {
    private let key: [UInt8]
    private let expectedDigest: [UInt8]

    /// - Parameter token: the token from the file (already trimmed and checked non-empty).
    init(token: String) {
        key = SecureRandom.bytes(32)
        expectedDigest = HMACSHA256.mac(key: key, message: Array(token.utf8))
    }

    /// Whether `authorization` (the request's Authorization header) is `Bearer <the token>` (``BearerToken``), the
    /// token exact.
    func permits(_ authorization: String?) -> Bool {
        guard let token = BearerToken.from(authorization: authorization) else { return false }
        return ConstantTime.equal(HMACSHA256.mac(key: key, message: Array(token.utf8)), expectedDigest)
    }
}
