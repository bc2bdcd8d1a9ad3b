/// How a token's issue time (`iat`, whole seconds since the epoch) is judged against the clock and against sign-outs.
///
/// Pure: the time comes in. A verifier accepts a token issued up to ``clockSkewSeconds`` ahead of its clock, so a
/// sign-out must refuse that far ahead too, or a token minted by a fast clock (or dated ahead on purpose) outlives
/// the sign-out it was minted before. Tokens minted after a sign-out are dated past its boundary
/// (``issuedAt(now:signedOutUntil:)``), so signing in again right after signing out works.
public enum TokenTimes {
    /// How far a token's issue time may be ahead of this server's clock (the clocks of the nodes and backends that
    /// mint tokens differ a little); a token dated further ahead is refused.
    public static let clockSkewSeconds: Int64 = 60

    /// The earliest issue time a sign-out at `now` leaves valid: every token a verifier could accept at `now` (issued
    /// up to the skew ahead) is refused, and so is one minted in the same second as the sign-out.
    public static func signOutBoundary(now: Int64) -> Int64 {
        let (boundary, overflow) = now.addingReportingOverflow(1 + clockSkewSeconds)
        return overflow ? .max : boundary
    }

    /// The `iat` for a token minted at `now` whose user (or device) was last signed out up to `signedOutUntil` (a
    /// ``signOutBoundary(now:)``), nil when never: `now`, or when that lies before the boundary, the boundary as far as the
    /// skew lets a verifier accept it at once. In the sign-out's own second that is still before the boundary, so a
    /// token minted then is refused like any other of that second; from the next second on it is not.
    public static func issuedAt(now: Int64, signedOutUntil: Int64?) -> Int64 {
        guard let signedOutUntil, signedOutUntil > now else { return now }
        let (latest, overflow) = now.addingReportingOverflow(clockSkewSeconds)
        return overflow ? now : min(signedOutUntil, latest)
    }
}
