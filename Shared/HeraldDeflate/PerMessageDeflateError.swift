/// Why a permessage-deflate negotiation was declined or failed, or why zlib could not start.
public enum PerMessageDeflateError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The `Sec-WebSocket-Extensions` header does not follow RFC 6455 §9.1.
    case malformedHeader(String)
    /// A parameter RFC 7692 §7.1 does not define (an offer or response with one MUST be declined / failed).
    case unknownParameter(String)
    /// A parameter given twice (RFC 7692 §7: MUST be declined / failed).
    case duplicateParameter(String)
    /// A parameter with a value it may not have: a window size outside 8...15, or a value on a flag (RFC 7692 §7.1).
    case invalidValue(parameter: String, value: String?)
    /// A window size that is valid on the wire but zlib cannot compress with: raw deflate refuses 8 (it would
    /// silently use 9, producing distances a 256-byte-window peer cannot resolve), so such an offer is declined.
    case unsupportedWindowBits(parameter: String, value: Int)
    /// The server's response contradicts the client's offer (RFC 7692 §7.1.2: a parameter not offered, or a larger
    /// window than offered), or selects permessage-deflate more than once.
    case responseNotAllowed(String)
    /// The response selects an extension the client did not offer (RFC 6455 §4.1 item 5).
    case extensionNotOffered(String)
    /// zlib refused to start a stream (`deflateInit2`/`inflateInit2`), e.g. out of memory.
    case zlib(function: String, code: Int32)

    public var description: String {
        switch self {
        case .malformedHeader(let why): "malformed Sec-WebSocket-Extensions: \(why)"
        case .unknownParameter(let name): "unknown permessage-deflate parameter \(name)"
        case .duplicateParameter(let name): "permessage-deflate parameter \(name) given twice"
        case .invalidValue(let name, let value): "invalid value \(value.map { "'\($0)'" } ?? "(none)") for \(name)"
        case .unsupportedWindowBits(let name, let value): "\(name)=\(value) cannot be honoured: zlib raw deflate needs 9...15"
        case .responseNotAllowed(let why): "permessage-deflate response not allowed: \(why)"
        case .extensionNotOffered(let name): "server selected extension \(name) that was not offered"
        case .zlib(let function, let code): "\(function) failed with zlib code \(code)"
        }
    }
}
