/// One complete HTTP/1.1 request: its head and its decoded body (Content-Length or chunked, RFC 9112 §6).
public struct HTTPRequest: Sendable {
    /// Method, target, version and header fields.
    public var head: HTTPRequestHead
    /// The body after transfer decoding; empty when the request had none.
    public var body: [UInt8]

    public init(head: HTTPRequestHead, body: [UInt8] = []) {
        self.head = head
        self.body = body
    }
}

/// Why the bytes of a request could not be read: the status to answer with, a stable error code and a message.
/// After a read failure the connection's framing is lost, so it is answered and closed.
public struct HTTPReadFailure: Error, Sendable, Equatable {
    public var status: Int
    public var code: String
    public var message: String

    /// The stable code of a status the head parser reports (400, 431, 505).
    static func fromHead(status: Int, reason: String) -> HTTPReadFailure {
        switch status {
        case 431: HTTPReadFailure(status: 431, code: "headers_too_large", message: reason)
        case 505: HTTPReadFailure(status: 505, code: "http_version_not_supported", message: reason)
        default: HTTPReadFailure(status: status, code: "bad_request", message: reason)
        }
    }
}
