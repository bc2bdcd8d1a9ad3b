/// Which end of a WebSocket connection this endpoint is.
///
/// The role decides masking (RFC 6455 §5.1, §5.3): a client MUST mask every frame it sends and a server
/// MUST NOT; a server MUST fail the connection on an unmasked frame and a client on a masked one.
public enum WebSocketRole: Sendable, Hashable {
    /// The accepting side: requires masked frames in, sends unmasked frames out.
    case server
    /// The connecting side: requires unmasked frames in, masks every frame out with a fresh key.
    case client
}
