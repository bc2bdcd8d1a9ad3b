import HeraldWebSocket

/// One HTTP/1.1 request as a push service delivers it (RFC 8030 §5: a POST with the encrypted body), read from bytes
/// as they arrive with the same reader (and head parser) the server uses, so the client is as strict about framing
/// as the server: no smuggling (Transfer-Encoding with Content-Length), bounded head and body. No IO: the endpoint
/// feeds it and asks whether a whole request is there.
struct PushEndpointRequest {
    enum Parse: Equatable {
        case needMore
        case complete(head: HTTPRequestHead, body: [UInt8])
        /// Not something this endpoint takes; answered with `status` and closed.
        case refused(status: Int, reason: String)
    }

    /// A push body is at most 4096 bytes (RFC 8030 §7.2); the head of a well-behaved sender a few hundred.
    static let maxHead = 16 * 1024
    static let maxBody = 8 * 1024

    private var reader = HTTPRequestReader(maxHeadSize: maxHead)
    /// The head read, while its body is still coming.
    private var head: HTTPRequestHead?

    mutating func append(_ bytes: ArraySlice<UInt8>) {
        bytes.withUnsafeBytes { reader.append($0) }
    }

    /// The request once it is whole; only the first request of a connection counts (the endpoint answers and closes).
    mutating func parse() -> Parse {
        while true {
            switch reader.next() {
            case .needMore:
                return .needMore
            case .failed(let failure):
                return .refused(status: failure.status, reason: failure.message)
            case .head(let received):
                if let failure = reader.beginBody(of: received, maxBodySize: Self.maxBody) {
                    return .refused(status: failure.status, reason: failure.message)
                }
                head = received
            case .body(let body):
                guard let head else { return .refused(status: 400, reason: "a body without a request") }
                return .complete(head: head, body: body)
            }
        }
    }
}
