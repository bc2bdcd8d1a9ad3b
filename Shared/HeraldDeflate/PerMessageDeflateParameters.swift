import HeraldWebSocket

/// The permessage-deflate agreement of one connection, in the terms of the server's response (RFC 7692 §7.1).
///
/// Each direction has its own compression context: the server compresses what it sends with a window of at most
/// 2^``serverMaxWindowBits`` bytes and, with ``serverNoContextTakeover``, resets it after every message; the client
/// likewise with the `client` parameters. Built by ``PerMessageDeflateServerConfiguration/negotiate(_:)`` or
/// ``PerMessageDeflateClientConfiguration/acceptResponse(_:)``, then handed to ``PerMessageDeflate``.
public struct PerMessageDeflateParameters: Sendable, Hashable {
    /// The server resets its compression context after each message (RFC 7692 §7.1.1.1).
    public var serverNoContextTakeover: Bool
    /// The client resets its compression context after each message (RFC 7692 §7.1.1.2).
    public var clientNoContextTakeover: Bool
    /// The server's LZ77 window is at most 2^N (8...15); `nil` when the response has no such parameter (15).
    public var serverMaxWindowBits: Int?
    /// The client's LZ77 window is at most 2^N (8...15); `nil` when the response has no such parameter (15).
    public var clientMaxWindowBits: Int?

    /// Creates an agreement; window bits are not validated here (negotiation does that).
    public init(serverNoContextTakeover: Bool = false, clientNoContextTakeover: Bool = false,
                serverMaxWindowBits: Int? = nil, clientMaxWindowBits: Int? = nil) {
        self.serverNoContextTakeover = serverNoContextTakeover
        self.clientNoContextTakeover = clientNoContextTakeover
        self.serverMaxWindowBits = serverMaxWindowBits
        self.clientMaxWindowBits = clientMaxWindowBits
    }

    /// The `Sec-WebSocket-Extensions` value a server answers with, e.g.
    /// `permessage-deflate; server_no_context_takeover; client_max_window_bits=10`.
    public var responseHeader: String {
        var parameters: [(name: String, value: String?)] = []
        if serverNoContextTakeover { parameters.append((PerMessageDeflateParameterName.serverNoContextTakeover, nil)) }
        if clientNoContextTakeover { parameters.append((PerMessageDeflateParameterName.clientNoContextTakeover, nil)) }
        if let bits = serverMaxWindowBits { parameters.append((PerMessageDeflateParameterName.serverMaxWindowBits, String(bits))) }
        if let bits = clientMaxWindowBits { parameters.append((PerMessageDeflateParameterName.clientMaxWindowBits, String(bits))) }
        return ExtensionOffer(name: PerMessageDeflateParameterName.extensionName, parameters: parameters).headerValue
    }

    /// The window `role` compresses its outgoing messages with (what the peer allowed, 15 if unrestricted).
    public func sendingWindowBits(for role: WebSocketRole) -> Int {
        (role == .server ? serverMaxWindowBits : clientMaxWindowBits) ?? 15
    }

    /// The window `role` needs to decompress what the peer sends. Never below 9: a decoder with a larger window than
    /// the encoder is always correct, and some deflate encoders asked for 8 quietly use 9.
    public func receivingWindowBits(for role: WebSocketRole) -> Int {
        max(9, (role == .server ? clientMaxWindowBits : serverMaxWindowBits) ?? 15)
    }

    /// Whether `role` resets its compressor after every message it sends.
    public func sendsWithoutContextTakeover(for role: WebSocketRole) -> Bool {
        role == .server ? serverNoContextTakeover : clientNoContextTakeover
    }

    /// Whether the peer of `role` resets its compressor after every message, so `role` may reset its decompressor.
    public func receivesWithoutContextTakeover(for role: WebSocketRole) -> Bool {
        role == .server ? clientNoContextTakeover : serverNoContextTakeover
    }
}

/// The names RFC 7692 §7 defines.
enum PerMessageDeflateParameterName {
    static let extensionName = "permessage-deflate"
    static let serverNoContextTakeover = "server_no_context_takeover"
    static let clientNoContextTakeover = "client_no_context_takeover"
    static let serverMaxWindowBits = "server_max_window_bits"
    static let clientMaxWindowBits = "client_max_window_bits"
}

/// The parameters of one permessage-deflate offer or response, each checked for RFC 7692 §7.1 syntax.
struct DeflateParameterSet {
    /// Presence of a window parameter: absent, present without a value (only client_max_window_bits in an offer),
    /// or present with a value 8...15.
    enum Window: Equatable {
        case absent
        case presentWithoutValue
        case value(Int)
    }

    var serverNoContextTakeover = false
    var clientNoContextTakeover = false
    var serverMaxWindowBits = Window.absent
    var clientMaxWindowBits = Window.absent

    /// Reads and validates `offer`'s parameters.
    ///
    /// RFC 7692 §7: an offer (or response) with an unknown parameter, a parameter twice, or an invalid value MUST be
    /// declined (or failed, for a response). `server_max_window_bits` always needs a value; `client_max_window_bits`
    /// may omit it only in an offer (§7.1.2.2).
    init(_ offer: ExtensionOffer, isResponse: Bool) throws(PerMessageDeflateError) {
        var seen: Set<String> = []
        for (rawName, value) in offer.parameters {
            let name = rawName.lowercased()
            guard seen.insert(name).inserted else { throw .duplicateParameter(name) }
            switch name {
            case PerMessageDeflateParameterName.serverNoContextTakeover:
                guard value == nil else { throw .invalidValue(parameter: name, value: value) }
                serverNoContextTakeover = true
            case PerMessageDeflateParameterName.clientNoContextTakeover:
                guard value == nil else { throw .invalidValue(parameter: name, value: value) }
                clientNoContextTakeover = true
            case PerMessageDeflateParameterName.serverMaxWindowBits:
                serverMaxWindowBits = .value(try Self.windowBits(name, value))
            case PerMessageDeflateParameterName.clientMaxWindowBits:
                if value == nil && !isResponse {
                    clientMaxWindowBits = .presentWithoutValue
                } else {
                    clientMaxWindowBits = .value(try Self.windowBits(name, value))
                }
            default:
                throw .unknownParameter(name)
            }
        }
    }

    /// RFC 7692 §7.1.2: `1*DIGIT` without leading zeros, 8...15.
    private static func windowBits(_ name: String, _ value: String?) throws(PerMessageDeflateError) -> Int {
        guard let value, !value.hasPrefix("0"), value.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }),
              let bits = Int(value), (8...15).contains(bits)
        else { throw .invalidValue(parameter: name, value: value) }
        return bits
    }
}
