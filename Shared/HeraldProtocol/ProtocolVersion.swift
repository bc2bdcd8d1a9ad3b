/// The versioned name of Herald's sync protocol.
///
/// Clients offer it in `Sec-WebSocket-Protocol` when they open `/sync`; the server selects it. A future
/// incompatible protocol gets a new name (`herald.v2`) so old clients fail at the handshake, not mid-stream.
public enum HeraldProtocolVersion {
    /// The subprotocol token of this version.
    public static let subprotocol = "herald.v1"
}

/// The release: the one version both programs report with `--version` and the server reports in `GET /api/v1/health`.
public enum HeraldRelease {
    public static let version = "0.7.0"
}
