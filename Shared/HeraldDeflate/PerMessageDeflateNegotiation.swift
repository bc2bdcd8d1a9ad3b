/// What a server accepts of permessage-deflate offers, and the negotiation itself as pure data (RFC 7692 §5, §7.1).
///
/// ```swift
/// let deflate = PerMessageDeflateServerConfiguration()
/// if let agreed = deflate.negotiate(upgrade.offeredExtensions) {
///     response = WebSocketHandshake.serverResponse(for: upgrade, subprotocol: nil, extensionsHeader: agreed.responseHeader)
///     compression = try PerMessageDeflate(parameters: agreed, role: .server)
/// }
/// ```
public struct PerMessageDeflateServerConfiguration: Sendable, Hashable {
    /// The largest window the server compresses with, 9...15 (values outside are clamped). A client asking for less
    /// (`server_max_window_bits`) gets its value; a client asking for 8 is declined (see
    /// ``PerMessageDeflateError/unsupportedWindowBits(parameter:value:)``).
    public var maxWindowBits = 15
    /// The window clients that support `client_max_window_bits` are asked to stay within, 8...15 (15: no request).
    /// A smaller window saves the server's inflate memory per connection.
    public var clientMaxWindowBits = 15
    /// Always answer with `server_no_context_takeover`, which RFC 7692 §7.1.1.1 lets a server do unasked. Outgoing
    /// messages then depend on no per-connection history, so a broadcast can be compressed once for every receiver
    /// with the same window (``SharedMessageCompressor``), and no compression window is kept between messages.
    public var noContextTakeover = true
    /// Ask the client to reset its context after every message (`client_no_context_takeover`).
    public var requestClientNoContextTakeover = false

    /// The defaults: window 15, server_no_context_takeover.
    public init() {}

    /// Accepts the first acceptable permessage-deflate offer among `headerValues` (every `Sec-WebSocket-Extensions`
    /// value of the request, in order of the client's preference, RFC 6455 §9.1), or returns `nil` to run without
    /// compression. A malformed header also yields `nil`: compression is optional, refusing the upgrade is not needed.
    public func negotiate(_ headerValues: [String]) -> PerMessageDeflateParameters? {
        guard let offers = try? ExtensionOffer.parse(headerValues) else { return nil }
        for offer in offers where offer.name.lowercased() == PerMessageDeflateParameterName.extensionName {
            if case .success(let parameters) = accept(offer) { return parameters }
        }
        return nil
    }

    /// Decides one permessage-deflate offer: the response parameters, or why it must be declined.
    public func accept(_ offer: ExtensionOffer) -> Result<PerMessageDeflateParameters, PerMessageDeflateError> {
        let requested: DeflateParameterSet
        do {
            requested = try DeflateParameterSet(offer, isResponse: false)
        } catch {
            return .failure(error)
        }
        var agreed = PerMessageDeflateParameters()
        // §7.1.1.1: a server accepting server_no_context_takeover MUST include it; it MAY include it unasked.
        agreed.serverNoContextTakeover = requested.serverNoContextTakeover || noContextTakeover
        // §7.1.1.2: the client's hint, or our own request; either way the client must then reset.
        agreed.clientNoContextTakeover = requested.clientNoContextTakeover || requestClientNoContextTakeover

        // §7.1.2.1: answer server_max_window_bits with the same or a smaller value; unasked we may state our own.
        let ours = min(max(maxWindowBits, 9), 15)
        switch requested.serverMaxWindowBits {
        case .value(let asked):
            let bits = min(ours, asked)
            // zlib's raw deflate rejects windowBits 8 (deflateInit2 returns Z_STREAM_ERROR; older versions silently
            // used 9), and a 9-bit window would emit distances a 256-byte decoder cannot resolve: decline.
            guard bits >= 9 else { return .failure(.unsupportedWindowBits(parameter: PerMessageDeflateParameterName.serverMaxWindowBits, value: asked)) }
            agreed.serverMaxWindowBits = bits
        case .absent, .presentWithoutValue:
            agreed.serverMaxWindowBits = ours < 15 ? ours : nil
        }

        // §7.1.2.2: client_max_window_bits may only be answered if the client offered it (with or without a value);
        // the answer may not exceed the offered value.
        let wanted = min(max(clientMaxWindowBits, 8), 15)
        switch requested.clientMaxWindowBits {
        case .absent:
            agreed.clientMaxWindowBits = nil
        case .presentWithoutValue:
            agreed.clientMaxWindowBits = wanted < 15 ? wanted : nil
        case .value(let offered):
            agreed.clientMaxWindowBits = min(wanted, offered)
        }
        return .success(agreed)
    }
}

/// What a client offers, and the check of the server's answer (RFC 7692 §5, §7.1).
///
/// ```swift
/// let deflate = PerMessageDeflateClientConfiguration()
/// request = WebSocketHandshake.clientRequest(..., extraHeaders: [("Sec-WebSocket-Extensions", deflate.offerHeader)])
/// // after the 101, validated with allowExtensions: true:
/// if let agreed = try deflate.acceptResponse(response.headers.values(for: "Sec-WebSocket-Extensions")) { ... }
/// ```
public struct PerMessageDeflateClientConfiguration: Sendable, Hashable {
    /// Ask the server to reset its context after each message (`server_no_context_takeover`).
    public var requestServerNoContextTakeover = false
    /// Declare that we reset our context after each message (`client_no_context_takeover`), and do so.
    public var noContextTakeover = false
    /// Ask the server to compress with a window of at most 2^N (`server_max_window_bits=N`, 8...15), or `nil`.
    public var requestServerMaxWindowBits: Int?
    /// Our own compression window limit, 9...15, sent as `client_max_window_bits=N`; `nil` sends the bare parameter
    /// (we accept whatever limit the server chooses, 9...15).
    public var maxWindowBits: Int?

    /// The defaults: `permessage-deflate; client_max_window_bits`.
    public init() {}

    /// The offer as a parsed value.
    public var offer: ExtensionOffer {
        var parameters: [(name: String, value: String?)] = []
        if requestServerNoContextTakeover { parameters.append((PerMessageDeflateParameterName.serverNoContextTakeover, nil)) }
        if noContextTakeover { parameters.append((PerMessageDeflateParameterName.clientNoContextTakeover, nil)) }
        if let bits = requestServerMaxWindowBits { parameters.append((PerMessageDeflateParameterName.serverMaxWindowBits, String(min(max(bits, 8), 15)))) }
        parameters.append((PerMessageDeflateParameterName.clientMaxWindowBits, maxWindowBits.map { String(min(max($0, 9), 15)) }))
        return ExtensionOffer(name: PerMessageDeflateParameterName.extensionName, parameters: parameters)
    }

    /// The `Sec-WebSocket-Extensions` value to send, e.g. `permessage-deflate; client_max_window_bits`.
    public var offerHeader: String { offer.headerValue }

    /// Checks the server's `Sec-WebSocket-Extensions` values against our offer.
    ///
    /// - Returns: the agreement, or `nil` when the server accepted no extension (run uncompressed).
    /// - Throws: ``PerMessageDeflateError`` when the response is not a valid answer to our offer; the client MUST
    ///   then fail the WebSocket connection (RFC 6455 §4.1 item 5, RFC 7692 §5).
    public func acceptResponse(_ headerValues: [String]) throws(PerMessageDeflateError) -> PerMessageDeflateParameters? {
        let elements = try ExtensionOffer.parse(headerValues)
        guard let response = elements.first else { return nil }
        for element in elements where element.name.lowercased() != PerMessageDeflateParameterName.extensionName {
            throw .extensionNotOffered(element.name)
        }
        guard elements.count == 1 else { throw .responseNotAllowed("permessage-deflate selected more than once") }
        let answered = try DeflateParameterSet(response, isResponse: true)
        var agreed = PerMessageDeflateParameters()

        // §7.1.1.1: a server accepting our server_no_context_takeover MUST include it; including it unasked is fine.
        if requestServerNoContextTakeover && !answered.serverNoContextTakeover {
            throw .responseNotAllowed("server_no_context_takeover was requested but not confirmed")
        }
        agreed.serverNoContextTakeover = answered.serverNoContextTakeover
        agreed.clientNoContextTakeover = answered.clientNoContextTakeover || noContextTakeover

        if case .value(let bits) = answered.serverMaxWindowBits {
            if let asked = requestServerMaxWindowBits, bits > asked {
                throw .responseNotAllowed("server_max_window_bits=\(bits) exceeds the requested \(asked)")
            }
            agreed.serverMaxWindowBits = bits
        } else if requestServerMaxWindowBits != nil {
            // §7.1.2.1: accepting an offer with server_max_window_bits means answering it.
            throw .responseNotAllowed("server_max_window_bits was requested but not answered")
        }

        if case .value(let bits) = answered.clientMaxWindowBits {
            if let ours = maxWindowBits, bits > ours {
                throw .responseNotAllowed("client_max_window_bits=\(bits) exceeds our offered \(ours)")
            }
            // We cannot comply with 8 (zlib raw deflate needs 9...15), so the connection must fail.
            guard bits >= 9 else { throw .unsupportedWindowBits(parameter: PerMessageDeflateParameterName.clientMaxWindowBits, value: bits) }
            agreed.clientMaxWindowBits = bits
        } else if let ours = maxWindowBits, ours < 15 {
            agreed.clientMaxWindowBits = ours  // our own limit still holds for our compressor
        }
        return agreed
    }
}
