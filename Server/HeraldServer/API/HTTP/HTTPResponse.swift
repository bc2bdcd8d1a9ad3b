import Foundation
import HeraldWebSocket

/// An HTTP response to serialize on a connection: status, extra header fields and a body.
public struct HTTPResponse: Sendable {
    public var status: Int
    /// Fields besides Content-Length and Connection, which serialization adds.
    public var headers: [(name: String, value: String)]
    public var body: [UInt8]

    public init(status: Int, headers: [(name: String, value: String)] = [], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// A JSON response. Keys are sorted so equal values give equal bytes.
    public static func json<Value: Encodable>(_ status: Int, _ value: Value, headers: [(name: String, value: String)] = []) -> HTTPResponse {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let body = (try? encoder.encode(value)).map(Array.init) ?? Array(#"{"error":{"code":"internal","message":"unencodable response"}}"#.utf8)
        return HTTPResponse(status: status, headers: [("Content-Type", "application/json")] + headers, body: body)
    }

    /// The JSON error shape `{"error":{"code":"…","message":"…"}}`.
    public static func error(_ status: Int, code: String, _ message: String, headers: [(name: String, value: String)] = []) -> HTTPResponse {
        json(status, APIErrorBody(error: .init(code: code, message: message)), headers: headers)
    }

    /// The bytes on the wire: status line, fields, Content-Length, Connection, blank line, body (none for HEAD).
    func serialized(keepAlive: Bool, omitBody: Bool = false) -> [UInt8] {
        var text = "HTTP/1.1 \(status) \(Self.reasonPhrase(for: status))\r\n"
        for (name, value) in headers { text += "\(Self.clean(name)): \(Self.clean(value))\r\n" }
        text += "Content-Length: \(body.count)\r\nConnection: \(keepAlive ? "keep-alive" : "close")\r\n\r\n"
        var bytes = Array(text.utf8)
        if !omitBody { bytes += body }
        return bytes
    }

    static func reasonPhrase(for status: Int) -> String {
        switch status {
        case 201: "Created"
        case 409: "Conflict"
        case 501: "Not Implemented"
        default: WebSocketHandshake.reasonPhrase(for: status)
        }
    }

    /// CR and LF never reach the wire inside a field (response splitting).
    private static func clean(_ text: String) -> String {
        String(text.unicodeScalars.filter { $0 != "\r" && $0 != "\n" })
    }
}

/// `{"error":{"code":…,"message":…}}`: every API error has this shape.
public struct APIErrorBody: Codable, Sendable, Equatable {
    public struct Detail: Codable, Sendable, Equatable {
        /// Stable, for programs: bad_request, bad_json, unauthorized, forbidden, not_found, conflict, too_large, rate_limited, …
        public var code: String
        /// For people.
        public var message: String
    }
    public var error: Detail
}
