/// Where a ``HeraldSession``'s connection is.
public enum ConnectionState: Sendable, Equatable {
    /// Not started yet (``HeraldSession/connect()`` starts it).
    case idle
    /// Connecting, or connected and not yet synced.
    case connecting
    /// The stream is live (R1a): messages arrive and sends go out.
    case online
    /// The connection was lost (or could not be made); the next attempt comes after a jittered backoff.
    case offline(reason: String)
    /// The session ended and does not reconnect.
    case stopped(StopReason)
}

/// Why a session stopped.
public enum StopReason: Sendable, Equatable {
    /// ``HeraldSession/disconnect()`` was called.
    case disconnected
    /// The server refused the token, or ended it (expired, or the device was signed out): a new token is needed.
    case unauthorized(String)
    /// The session could not run (its TLS settings could not be loaded, say).
    case failed(String)
}
