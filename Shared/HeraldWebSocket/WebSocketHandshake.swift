/// A valid WebSocket upgrade request, as found by ``WebSocketHandshake/validateUpgrade(_:)``.
public struct UpgradeRequest: Sendable, Hashable {
    /// The `Sec-WebSocket-Key` value (base64 of 16 bytes), needed for the accept key.
    public var key: String
    /// The subprotocols offered in `Sec-WebSocket-Protocol`, in order of preference (§4.1, §11.3.4).
    public var offeredSubprotocols: [String]
    /// The raw `Sec-WebSocket-Extensions` header values (§9.1), for an extension negotiator to interpret.
    public var offeredExtensions: [String]
    /// The request the upgrade came in, for routing, `Origin` checks and auth.
    public var head: HTTPRequestHead
}

/// Why an upgrade request was refused: the HTTP status and headers to answer with (§4.2.1, §4.2.2).
public struct HandshakeRejection: Error, Sendable, Hashable {
    /// 400 for a malformed handshake, 426 for an unsupported `Sec-WebSocket-Version`.
    public var status: Int
    /// Headers the response must carry (426 carries `Sec-WebSocket-Version: 13`, §4.4).
    public var headers: [HTTPHeaders.Field]
    /// What was wrong, suitable as the response body.
    public var reason: String

    /// The complete HTTP response for this rejection.
    public var response: [UInt8] {
        WebSocketHandshake.rejectionResponse(status: status, reason: reason, headers: headers.map { ($0.name, $0.value) })
    }
}

/// Why a server's handshake response was not accepted by the client (§4.1); the client MUST fail the connection.
public struct HandshakeFailure: Error, Sendable, Hashable, CustomStringConvertible {
    /// The response status, if the failure is that it was not 101.
    public var status: Int?
    /// What was wrong.
    public var reason: String
    public var description: String { status.map { "handshake failed with HTTP \($0): \(reason)" } ?? "handshake failed: \(reason)" }
}

/// The opening handshake (RFC 6455 §4), both sides, as pure functions over heads and bytes.
public enum WebSocketHandshake {
    /// §1.3: the GUID appended to the client's key.
    public static let guid = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"

    /// The `Sec-WebSocket-Accept` value for a client key: base64(SHA-1(key + GUID)) (§4.2.2 item 5.4).
    public static func acceptKey(for clientKey: String) -> String {
        Base64.encode(SHA1.hash((clientKey + guid).utf8))
    }

    // MARK: - Server side

    /// Checks a request against §4.2.1 and returns what the server needs to accept it, or how to refuse it.
    ///
    /// The request must be a GET (item 1) over HTTP/1.1 or later (item 1), with a Host (item 2), `Upgrade`
    /// containing `websocket` (item 3), `Connection` containing `Upgrade` (item 4, token list, case-insensitive),
    /// a `Sec-WebSocket-Key` that is base64 of 16 bytes (item 5) and `Sec-WebSocket-Version: 13` (item 6;
    /// otherwise 426 with `Sec-WebSocket-Version: 13`, §4.2.2 / §4.4).
    public static func validateUpgrade(_ head: HTTPRequestHead) -> Result<UpgradeRequest, HandshakeRejection> {
        func reject(_ reason: String) -> Result<UpgradeRequest, HandshakeRejection> {
            .failure(HandshakeRejection(status: 400, headers: [], reason: reason))
        }
        let headers = head.headers
        guard head.method == "GET" else { return reject("WebSocket upgrade requires GET") }
        guard head.version.major == 1, head.version.minor >= 1 else { return reject("WebSocket upgrade requires HTTP/1.1") }
        guard headers.values(for: "Host").count == 1 else { return reject("missing or repeated Host header") }
        guard headers.listContainsToken("Upgrade", "websocket") else { return reject("missing Upgrade: websocket") }
        guard headers.listContainsToken("Connection", "Upgrade") else { return reject("Connection header does not contain Upgrade") }
        let versions = headers.listValues(for: "Sec-WebSocket-Version")
        guard versions == ["13"] else {
            return .failure(HandshakeRejection(status: 426, headers: [.init(name: "Sec-WebSocket-Version", value: "13")],
                                               reason: "unsupported Sec-WebSocket-Version; this server speaks 13"))
        }
        let keys = headers.values(for: "Sec-WebSocket-Key")
        guard keys.count == 1, let key = keys.first, Base64.decode(key)?.count == 16 else {
            return reject("Sec-WebSocket-Key must be base64 of 16 bytes")
        }
        return .success(UpgradeRequest(key: key, offeredSubprotocols: headers.listValues(for: "Sec-WebSocket-Protocol"),
                                       offeredExtensions: headers.values(for: "Sec-WebSocket-Extensions"), head: head))
    }

    /// The `101 Switching Protocols` response accepting `request` (§4.2.2 item 5).
    ///
    /// - Parameters:
    ///   - request: the validated request.
    ///   - subprotocol: the chosen subprotocol; it must be one of `request.offeredSubprotocols` (§4.2.2), or `nil`.
    ///   - extensionsHeader: the negotiated `Sec-WebSocket-Extensions` value, or `nil`.
    ///   - extraHeaders: further headers; CR and LF are removed from names and values.
    public static func serverResponse(for request: UpgradeRequest, subprotocol: String?, extensionsHeader: String?,
                                      extraHeaders: [(String, String)] = []) -> [UInt8] {
        // Written straight into bytes: joining interpolated Strings was a sixth of the loop's work per upgrade.
        var response: [UInt8] = []
        response.reserveCapacity(256)
        response += Self.switchingProtocolsHead
        response += acceptKey(for: request.key).utf8
        func field(_ name: String, _ value: String) {
            response += "\r\n".utf8
            response += sanitize(name).utf8
            response += ": ".utf8
            response += sanitize(value).utf8
        }
        if let subprotocol { field("Sec-WebSocket-Protocol", subprotocol) }
        if let extensionsHeader { field("Sec-WebSocket-Extensions", extensionsHeader) }
        for (name, value) in extraHeaders { field(name, value) }
        response += "\r\n\r\n".utf8
        return response
    }

    private static let switchingProtocolsHead =
        Array("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ".utf8)

    /// A plain HTTP error response with a text body, `Content-Length` and `Connection: close`.
    ///
    /// - Parameters:
    ///   - status: the status code, e.g. 400, 426.
    ///   - reason: the body text (a newline is appended).
    ///   - headers: further headers, e.g. `("Sec-WebSocket-Version", "13")`.
    public static func rejectionResponse(status: Int, reason: String, headers: [(String, String)] = []) -> [UInt8] {
        let body = Array((reason + "\n").utf8)
        var lines = ["HTTP/1.1 \(status) \(reasonPhrase(for: status))", "Content-Type: text/plain; charset=utf-8",
                     "Content-Length: \(body.count)", "Connection: close"]
        for (name, value) in headers { lines.append("\(sanitize(name)): \(sanitize(value))") }
        return Array((lines.joined(separator: "\r\n") + "\r\n\r\n").utf8) + body
    }

    /// The standard reason phrase for common statuses (RFC 9110 §15), "Error" for others.
    public static func reasonPhrase(for status: Int) -> String {
        switch status {
        case 101: "Switching Protocols"
        case 200: "OK"
        case 204: "No Content"
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 408: "Request Timeout"
        case 413: "Content Too Large"
        case 426: "Upgrade Required"
        case 429: "Too Many Requests"
        case 431: "Request Header Fields Too Large"
        case 500: "Internal Server Error"
        case 503: "Service Unavailable"
        case 505: "HTTP Version Not Supported"
        default: "Error"
        }
    }

    // MARK: - Client side

    /// A fresh `Sec-WebSocket-Key`: base64 of 16 bytes from the system CSPRNG (§4.1 item 7: randomly selected).
    public static func randomClientKey() -> String {
        var generator = SystemRandomNumberGenerator()
        var bytes: [UInt8] = []
        bytes.reserveCapacity(16)
        for _ in 0..<2 {
            let value = generator.next() as UInt64
            for shift in stride(from: 0, to: 64, by: 8) { bytes.append(UInt8(truncatingIfNeeded: value >> UInt64(shift))) }
        }
        return Base64.encode(bytes)
    }

    /// The client's opening handshake request (§4.1).
    ///
    /// - Parameters:
    ///   - host: the `Host` value, with `:port` when not the scheme's default.
    ///   - path: the resource name including the query, e.g. `/sync?token=...`.
    ///   - key: a key from ``randomClientKey()``; keep it to validate the response.
    ///   - subprotocols: subprotocols to offer, most preferred first; none sends no header.
    ///   - extraHeaders: further headers (e.g. `Sec-WebSocket-Extensions`, `Authorization`); CR/LF are removed.
    public static func clientRequest(host: String, path: String, key: String, subprotocols: [String] = [],
                                     extraHeaders: [(String, String)] = []) -> [UInt8] {
        var lines = ["GET \(sanitize(path.isEmpty ? "/" : path)) HTTP/1.1", "Host: \(sanitize(host))", "Upgrade: websocket",
                     "Connection: Upgrade", "Sec-WebSocket-Key: \(sanitize(key))", "Sec-WebSocket-Version: 13"]
        if !subprotocols.isEmpty { lines.append("Sec-WebSocket-Protocol: \(sanitize(subprotocols.joined(separator: ", ")))") }
        for (name, value) in extraHeaders { lines.append("\(sanitize(name)): \(sanitize(value))") }
        return Array((lines.joined(separator: "\r\n") + "\r\n\r\n").utf8)
    }

    /// Checks the server's response against §4.1 (client requirements 1-6).
    ///
    /// - Parameters:
    ///   - head: the parsed response head.
    ///   - key: the key the client sent.
    ///   - offeredSubprotocols: what the client offered.
    ///   - allowExtensions: whether the client offered extensions (via its extra headers) and will check the
    ///     response's `Sec-WebSocket-Extensions` itself; if `false`, any extension in the response fails (§4.1 item 5).
    /// - Returns: the subprotocol the server chose (`nil` for none), or why the handshake failed.
    public static func validateServerResponse(_ head: HTTPResponseHead, key: String, offeredSubprotocols: [String],
                                              allowExtensions: Bool = false) -> Result<String?, HandshakeFailure> {
        func failure(_ reason: String, status: Int? = nil) -> Result<String?, HandshakeFailure> {
            .failure(HandshakeFailure(status: status, reason: reason))
        }
        let headers = head.headers
        // §4.1 item 1: a status other than 101 is handled per HTTP; for us the handshake has failed.
        guard head.status == 101 else { return failure("expected 101 Switching Protocols, got \(head.status) \(head.reasonPhrase)", status: head.status) }
        // Items 2 and 3: Upgrade: websocket and Connection: Upgrade (case-insensitive).
        guard headers.listContainsToken("Upgrade", "websocket") else { return failure("response lacks Upgrade: websocket") }
        guard headers.listContainsToken("Connection", "Upgrade") else { return failure("response lacks Connection: Upgrade") }
        // Item 4: Sec-WebSocket-Accept must be the accept key of what we sent.
        guard headers.values(for: "Sec-WebSocket-Accept") == [acceptKey(for: key)] else { return failure("wrong Sec-WebSocket-Accept") }
        // Item 5: extensions we did not offer.
        if !allowExtensions, !headers.listValues(for: "Sec-WebSocket-Extensions").isEmpty {
            return failure("server selected an extension that was not offered")
        }
        // Item 6: a subprotocol we did not offer (or more than one).
        let chosen = headers.listValues(for: "Sec-WebSocket-Protocol")
        switch chosen.count {
        case 0: return .success(nil)
        case 1 where offeredSubprotocols.contains(chosen[0]): return .success(chosen[0])
        default: return failure("server selected a subprotocol that was not offered: \(chosen.joined(separator: ", "))")
        }
    }

    /// Removes CR and LF so a value cannot inject header lines.
    private static func sanitize(_ text: String) -> String {
        guard text.utf8.contains(where: { $0 == UInt8(ascii: "\r") || $0 == UInt8(ascii: "\n") }) else { return text }
        return String(String.UnicodeScalarView(text.unicodeScalars.filter { $0 != "\r" && $0 != "\n" }))
    }
}
