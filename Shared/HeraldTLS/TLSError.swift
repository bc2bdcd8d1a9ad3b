import HeraldCrypto

/// A TLS failure, with OpenSSL's own explanation.
public struct TLSError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What was being done.
    public enum Kind: Sendable, Hashable {
        /// Creating or configuring an `SSL_CTX` (protocol versions, trust store).
        case context
        /// Loading the certificate chain, the private key, or checking that they match.
        case certificate
        /// The handshake failed: an untrusted or mismatched certificate, no common protocol version, a bad alert.
        case handshake
        /// Bad records after the handshake, or data that is not TLS at all.
        case protocolViolation
        /// Data was written after close_notify was sent or received.
        case closed
    }

    /// What was being done.
    public let kind: Kind
    /// The OpenSSL call or step that failed, e.g. `SSL_do_handshake`.
    public let operation: String
    /// OpenSSL's error queue, rendered (`error:0A000086:SSL routines::certificate verify failed`), plus the
    /// certificate verification result when one applies.
    public let detail: String

    /// Creates an error; normally made by ``fromOpenSSL(_:_:)``.
    public init(kind: Kind, operation: String, detail: String) {
        self.kind = kind
        self.operation = operation
        self.detail = detail
    }

    public var description: String { "TLS \(kind) error in \(operation): \(detail)" }

    /// Builds an error from (and clears) this thread's OpenSSL error queue.
    static func fromOpenSSL(_ kind: Kind, _ operation: String, extra: String? = nil) -> TLSError {
        var messages = OpenSSLErrorQueue.drain()
        if let extra { messages.append(extra) }
        return TLSError(kind: kind, operation: operation, detail: messages.isEmpty ? "unknown error" : messages.joined(separator: "; "))
    }
}
