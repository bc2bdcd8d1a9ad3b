import COpenSSL

/// Why a crypto operation refused its input or failed, with OpenSSL's own explanation when it had one.
///
/// Every bad input (a wrong-size key, a garbage PEM, a truncated push body) ends here as a thrown value, never a
/// trap: much of that input comes from the network or from configuration files.
public struct CryptoError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of failure, for callers that react differently (drop a subscription, fix a config, retry).
    public enum Kind: Sendable, Hashable {
        /// A key that cannot be used: garbage or encrypted PEM, the wrong algorithm or curve, a wrong size,
        /// a point not on the curve, a private scalar out of range.
        case invalidKey
        /// An argument outside what the operation accepts: an auth secret or salt of the wrong size, a record
        /// size too small, an endpoint without an origin, a VAPID subject that is neither mailto: nor https:,
        /// a JWT claim named twice.
        case invalidArgument
        /// The plaintext does not fit in one record of the requested record size (Web Push sends one record).
        case plaintextTooLarge
        /// An encrypted body that is not well formed: a truncated header, a short record, bad padding or delimiters.
        case malformedBody
        /// The AEAD tag did not verify: the wrong receiver key or auth secret, or the body was altered.
        case authenticationFailed
        /// OpenSSL failed where valid input cannot make it fail (allocation, a missing algorithm).
        case internalFailure
    }

    /// What kind of failure.
    public let kind: Kind
    /// What was refused and why, followed by OpenSSL's error queue when it had entries.
    public let message: String

    /// Creates an error with a message of our own.
    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { "crypto error (\(kind)): \(message)" }

    /// An error that also carries (and so clears) this thread's OpenSSL error queue.
    static func openSSL(_ kind: Kind, _ message: String) -> CryptoError {
        let detail = drainOpenSSLErrors()
        return CryptoError(kind, detail.isEmpty ? message : "\(message): \(detail)")
    }

    /// This thread's OpenSSL error queue, rendered and cleared (see ``OpenSSLErrorQueue``).
    static func drainOpenSSLErrors() -> String {
        OpenSSLErrorQueue.drain().joined(separator: "; ")
    }
}
