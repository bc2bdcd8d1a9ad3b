/// A close status code (RFC 6455 §7.4, IANA "WebSocket Close Code Number Registry").
///
/// Any `UInt16` can be represented, because a peer can put any two bytes in a close frame; ``isValidOnWire``
/// says whether the code may legally appear in one.
public struct CloseCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The code's numeric value.
    public let rawValue: UInt16

    /// Wraps a numeric code.
    public init(rawValue: UInt16) { self.rawValue = rawValue }

    /// 1000: the purpose of the connection has been fulfilled.
    public static let normal = CloseCode(rawValue: 1000)
    /// 1001: the endpoint is going away (server shutdown, page navigation).
    public static let goingAway = CloseCode(rawValue: 1001)
    /// 1002: the peer violated the protocol.
    public static let protocolError = CloseCode(rawValue: 1002)
    /// 1003: the endpoint received a kind of data it cannot accept.
    public static let unsupportedData = CloseCode(rawValue: 1003)
    /// 1005: no status code was present. Reported locally only; MUST NOT be sent (§7.4.1).
    public static let noStatus = CloseCode(rawValue: 1005)
    /// 1006: the connection closed without a close frame. Reported locally only; MUST NOT be sent (§7.4.1).
    public static let abnormal = CloseCode(rawValue: 1006)
    /// 1007: a message's data was inconsistent with its type, e.g. invalid UTF-8 in a text message.
    public static let invalidPayload = CloseCode(rawValue: 1007)
    /// 1008: a message violated the endpoint's policy.
    public static let policyViolation = CloseCode(rawValue: 1008)
    /// 1009: a message was too big to process.
    public static let messageTooBig = CloseCode(rawValue: 1009)
    /// 1010: (client only) the server did not negotiate an extension the client requires.
    public static let mandatoryExtension = CloseCode(rawValue: 1010)
    /// 1011: the server met an unexpected condition.
    public static let internalError = CloseCode(rawValue: 1011)
    /// 1013: try again later (IANA registry).
    public static let tryAgainLater = CloseCode(rawValue: 1013)

    /// Whether this code may appear in a close frame on the wire.
    ///
    /// - 0-999: not used (§7.4.2) -> invalid.
    /// - 1000-1003, 1007-1011: defined by RFC 6455 §7.4.1 -> valid.
    /// - 1004 (reserved), 1005 and 1006 (MUST NOT be set in a close frame, §7.4.1) -> invalid.
    /// - 1012-1014 (service restart, try again later, bad gateway) are registered with IANA and sent by real
    ///   servers, so we accept them; 1015 (TLS failure) MUST NOT be sent like 1005/1006; 1016-2999 are reserved
    ///   for future RFCs and unassigned -> invalid.
    /// - 3000-3999 (registered by libraries/frameworks) and 4000-4999 (private use) -> valid (§7.4.2).
    /// - 5000 and above: not defined -> invalid.
    public var isValidOnWire: Bool {
        switch rawValue {
        case 1000...1003, 1007...1011, 1012...1014, 3000...4999: true
        default: false
        }
    }

    public var description: String { String(rawValue) }
}
