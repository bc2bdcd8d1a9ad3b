/// Close codes of herald.v1 in the private range (RFC 6455 §7.4.2, 4000-4999), for what a client must do
/// differently from a plain disconnect.
public enum HeraldCloseCode {
    /// The credentials the connection was opened with ended: the token expired, or the user or the backend signed this
    /// device out. Reconnecting with the same token is refused; the client needs a new token.
    public static let credentialsEnded: UInt16 = 4001
    /// 1013 (IANA registry: try again later): the server could not check the credentials just now (its store failed);
    /// the client reconnects after its backoff.
    public static let tryAgainLater: UInt16 = 1013
}
