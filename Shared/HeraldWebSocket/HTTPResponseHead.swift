/// A parsed HTTP/1.x response head: status line plus header fields (RFC 9112 §4).
public struct HTTPResponseHead: Sendable, Hashable {
    /// The HTTP version.
    public var version: HTTPVersion
    /// The 3-digit status code.
    public var status: Int
    /// The reason phrase (may be empty).
    public var reasonPhrase: String
    /// The header fields.
    public var headers: HTTPHeaders

    /// Creates a head.
    public init(version: HTTPVersion = .http11, status: Int, reasonPhrase: String, headers: HTTPHeaders) {
        self.version = version
        self.status = status
        self.reasonPhrase = reasonPhrase
        self.headers = headers
    }
}

/// The outcome of feeding bytes to an ``HTTPResponseHeadParser``.
public enum HTTPResponseParseResult: Sendable, Hashable {
    /// The head is not complete yet; every byte given was consumed.
    case needMore
    /// The head is complete; `consumedBytes` counts the bytes of the last call that belonged to it. Bytes after it
    /// (e.g. the server's first WebSocket frame) belong to the connection.
    case complete(HTTPResponseHead, consumedBytes: Int)
    /// The response head is malformed or too large.
    case failed(reason: String)
}

/// An incremental parser of HTTP/1.x response heads, the client side of the opening handshake (RFC 6455 §4.1).
public struct HTTPResponseHeadParser: Sendable {
    private var accumulator: HTTPHeadAccumulator
    private var failure: String?

    /// Creates a parser that fails once a head exceeds `maxHeadSize` bytes.
    public init(maxHeadSize: Int = 16384) { accumulator = HTTPHeadAccumulator(maxHeadSize: maxHeadSize) }

    /// Feeds bytes; see ``HTTPResponseParseResult``.
    public mutating func parse(_ bytes: UnsafeRawBufferPointer) -> HTTPResponseParseResult {
        if let failure { return .failed(reason: failure) }
        switch accumulator.append(bytes) {
        case .needMore:
            return .needMore
        case .failed(_, let reason):
            failure = reason
            return .failed(reason: reason)
        case .complete(let lines, let consumed):
            switch Self.makeHead(lines) {
            case .success(let head):
                return .complete(head, consumedBytes: consumed)
            case .failure(let error):
                failure = error.reason
                return .failed(reason: error.reason)
            }
        }
    }

    /// Feeds bytes from an array.
    public mutating func parse(_ bytes: [UInt8]) -> HTTPResponseParseResult {
        bytes.withUnsafeBytes { parse($0) }
    }

    private static func makeHead(_ lines: [[UInt8]]) -> Result<HTTPResponseHead, HTTPHeadFailure> {
        guard let statusLine = lines.first else { return .failure(.init(status: 0, reason: "empty response")) }
        // RFC 9112 §4: status-line = HTTP-version SP status-code SP [ reason-phrase ]
        let parts = statusLine.split(separator: UInt8(ascii: " "), maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count >= 2, let (major, minor) = HTTPHeadAccumulator.parseVersion(parts[0]), major == 1,
              parts[1].count == 3, parts[1].allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }),
              let status = Int(String(decoding: parts[1], as: UTF8.self)) else {
            return .failure(.init(status: 0, reason: "malformed status line"))
        }
        switch HTTPHeadAccumulator.parseFields(lines[1...]) {
        case .failure(let failure):
            return .failure(failure)
        case .success(let headers):
            let reason = parts.count > 2 ? String(decoding: parts[2], as: UTF8.self) : ""
            return .success(HTTPResponseHead(version: HTTPVersion(major: major, minor: minor), status: status, reasonPhrase: reason, headers: headers))
        }
    }
}
