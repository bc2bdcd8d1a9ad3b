/// Where the client connects: parsed from `--server ws://host:port[/path]` (or `wss://`).
public struct ServerAddress: Sendable, Equatable {
    /// True for `wss://`.
    public var secure: Bool
    public var host: String
    public var port: Int
    /// The request path; `/sync` when the URL gives none.
    public var path: String

    public init(secure: Bool, host: String, port: Int, path: String) {
        self.secure = secure
        self.host = host
        self.port = port
        self.path = path
    }

    /// The `Host` header value (with the port unless it is the scheme's default).
    public var hostHeader: String {
        let name = host.contains(":") ? "[\(host)]" : host
        return port == (secure ? 443 : 80) ? name : "\(name):\(port)"
    }

    /// Parses a ws:// or wss:// URL; nil with a reason when it is not one.
    public static func parse(_ text: String) -> Result<ServerAddress, ServerAddressError> {
        let secure: Bool
        var rest: Substring
        if text.hasPrefix("ws://") {
            secure = false
            rest = text.dropFirst(5)
        } else if text.hasPrefix("wss://") {
            secure = true
            rest = text.dropFirst(6)
        } else {
            return .failure(ServerAddressError(text: text, reason: "the server URL must start with ws:// or wss://"))
        }
        var path = "/sync"
        if let slash = rest.firstIndex(of: "/") {
            let given = String(rest[slash...])
            if given != "/" { path = given }
            rest = rest[..<slash]
        }
        var host = String(rest)
        var port = secure ? 443 : 80
        if rest.hasPrefix("[") {
            guard let close = rest.firstIndex(of: "]") else { return .failure(ServerAddressError(text: text, reason: "unclosed [ in host")) }
            host = String(rest[rest.index(after: rest.startIndex)..<close])
            let after = rest[rest.index(after: close)...]
            if after.hasPrefix(":") {
                guard let value = Int(after.dropFirst()), (1...65535).contains(value) else {
                    return .failure(ServerAddressError(text: text, reason: "invalid port"))
                }
                port = value
            }
        } else if let colon = rest.lastIndex(of: ":") {
            host = String(rest[..<colon])
            guard let value = Int(rest[rest.index(after: colon)...]), (1...65535).contains(value) else {
                return .failure(ServerAddressError(text: text, reason: "invalid port"))
            }
            port = value
        }
        guard !host.isEmpty else { return .failure(ServerAddressError(text: text, reason: "the server URL has no host")) }
        return .success(ServerAddress(secure: secure, host: host, port: port, path: path))
    }
}

/// Why a `--server` value is not usable.
public struct ServerAddressError: Error, Sendable, Equatable, CustomStringConvertible {
    public var text: String
    public var reason: String
    public var description: String { "\(reason): \(text)" }
}
