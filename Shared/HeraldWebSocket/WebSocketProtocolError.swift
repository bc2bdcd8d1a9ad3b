/// A protocol violation by the peer, carrying the close code the connection was failed with (RFC 6455 §7.1.7).
public struct WebSocketProtocolError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The close code sent to the peer: 1002 protocol error, 1007 invalid payload or 1009 too big.
    public let closeCode: CloseCode
    /// What went wrong, for logs; never sent on the wire.
    public let reason: String

    /// Creates an error with its close code and a human-readable cause.
    public init(closeCode: CloseCode, reason: String) {
        self.closeCode = closeCode
        self.reason = reason
    }

    public var description: String { "WebSocket protocol error \(closeCode.rawValue): \(reason)" }

    static func protocolError(_ reason: String) -> WebSocketProtocolError { .init(closeCode: .protocolError, reason: reason) }
    static func invalidPayload(_ reason: String) -> WebSocketProtocolError { .init(closeCode: .invalidPayload, reason: reason) }
    static func tooBig(_ reason: String) -> WebSocketProtocolError { .init(closeCode: .messageTooBig, reason: reason) }
}
