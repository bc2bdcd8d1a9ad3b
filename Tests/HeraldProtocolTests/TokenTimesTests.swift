import HeraldProtocol
import Testing

/// The sign-out boundary against the clock skew a verifier allows, as pure arithmetic on whole seconds.
@Suite("Token times: sign-outs cover the clock skew; tokens minted after one are dated past it")
struct TokenTimesTests {
    static let skew = TokenTimes.clockSkewSeconds

    @Test("Every issue time a verifier accepts at the sign-out (up to the skew ahead) falls before its boundary")
    func boundaryCoversTheSkew() {
        for now: Int64 in [0, 1_796_655_848, 4_000_000_000] {
            let boundary = TokenTimes.signOutBoundary(now: now)
            for issuedAt in (now - 5)...(now + Self.skew) { #expect(issuedAt < boundary, "iat \(issuedAt) outlives a sign-out at \(now)") }
        }
        #expect(TokenTimes.signOutBoundary(now: .max) == .max, "saturates instead of trapping")
    }

    @Test("A token minted after a sign-out is dated at its boundary from the next second on, never beyond the skew; without one it is dated now")
    func mintedTokensAreDatedPastTheSignOut() {
        let signedOutAt: Int64 = 1_796_655_848
        let boundary = TokenTimes.signOutBoundary(now: signedOutAt)
        #expect(TokenTimes.issuedAt(now: signedOutAt, signedOutUntil: boundary) < boundary, "the sign-out's own second stays refused")
        for later in (signedOutAt + 1)...(signedOutAt + Self.skew + 3) {
            let issuedAt = TokenTimes.issuedAt(now: later, signedOutUntil: boundary)
            #expect(issuedAt >= boundary, "minted at \(later) but dated \(issuedAt), before the boundary \(boundary)")
            #expect(issuedAt <= later + Self.skew, "dated beyond what a verifier accepts at \(later)")
        }
        #expect(TokenTimes.issuedAt(now: signedOutAt, signedOutUntil: nil) == signedOutAt)
        #expect(TokenTimes.issuedAt(now: signedOutAt, signedOutUntil: signedOutAt - 100) == signedOutAt, "an old sign-out changes nothing")
        #expect(TokenTimes.issuedAt(now: .max, signedOutUntil: .max) == .max)
    }
}
