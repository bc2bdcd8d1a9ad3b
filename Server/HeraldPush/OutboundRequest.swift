/// One HTTP request to a push provider, built by a provider from a queued delivery (no IO).
public struct OutboundRequest: Sendable, Equatable {
    public var method: String
    public var url: String
    /// Header names as the provider documents them; order kept.
    public var headers: [(name: String, value: String)]
    public var body: [UInt8]
    /// APNs speaks only HTTP/2: the request goes over HTTP/2 and the answer must have come over it. Other providers
    /// get HTTP/1.1 with keep-alive.
    public var requiresHTTP2: Bool

    public init(method: String = "POST", url: String, headers: [(name: String, value: String)], body: [UInt8], requiresHTTP2: Bool = false) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.requiresHTTP2 = requiresHTTP2
    }

    public static func == (lhs: OutboundRequest, rhs: OutboundRequest) -> Bool {
        lhs.method == rhs.method && lhs.url == rhs.url && lhs.body == rhs.body && lhs.requiresHTTP2 == rhs.requiresHTTP2
            && lhs.headers.map(\.name) == rhs.headers.map(\.name) && lhs.headers.map(\.value) == rhs.headers.map(\.value)
    }

    /// The value of header `name` (case-insensitive), if set.
    public func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }
}

/// A provider's answer.
public struct HTTPResponse: Sendable, Equatable {
    public var status: Int
    /// Header names lowercased.
    public var headers: [String: String]
    public var body: [UInt8]

    public init(status: Int, headers: [String: String] = [:], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// `Retry-After` (RFC 9110 §10.2.3) as a bounded value; nil when absent or neither delay-seconds nor an HTTP-date.
    public var retryAfter: RetryAfter? {
        headers["retry-after"].flatMap(RetryAfter.init(header:))
    }
}

extension String {
    var trimmingSpaces: String {
        var view = Substring(self)
        while view.first == " " || view.first == "\t" { view = view.dropFirst() }
        // libcurl hands header lines with their CRLF.
        while view.last == " " || view.last == "\t" || view.last == "\r" || view.last == "\n" || view.last == "\r\n" { view = view.dropLast() }
        return String(view)
    }
}
