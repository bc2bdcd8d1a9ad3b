/// Why a ``HeraldSession`` call failed.
public enum HeraldError: Error, Sendable, Equatable {
    /// The configuration cannot be used (a bad server URL, a token that names no user, a bad device name).
    case invalidConfiguration(String)
    /// The server refused the command: its error code (`not_participant`, `rate_limited`, …) and message.
    case refused(code: String, message: String)
    /// The session has stopped (``HeraldSession/disconnect()``, or the server ended the credentials).
    case stopped
    /// The unsent-message store could not be read or written.
    case storage(String)
}
