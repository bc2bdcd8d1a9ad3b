/// The VAPID `aud` claim: the origin of the push endpoint (RFC 8292 §2, RFC 6454 §6.2).
extension VAPID {
    /// The ASCII origin of `endpoint`: lowercase scheme and host, and the port only when it is not the scheme's
    /// default (`https://push.example.net:8443`, but `https://push.example.net` for `:443`). Nil when the URL is
    /// not http or https, has no host, or has a malformed port; userinfo, path, query and fragment are dropped.
    public static func audience(of endpoint: String) -> String? {
        guard let separator = endpoint.firstRange(of: "://") else { return nil }
        let scheme = endpoint[..<separator.lowerBound].lowercased()
        let defaultPort: Int
        switch scheme {
        case "https": defaultPort = 443
        case "http": defaultPort = 80
        default: return nil
        }
        let rest = endpoint[separator.upperBound...]
        var authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        if let at = authority.lastIndex(of: "@") { authority = authority[authority.index(after: at)...] }

        let host: Substring
        let portText: Substring?
        if authority.hasPrefix("[") {
            // An IPv6 literal: the brackets stay part of the host (RFC 3986 §3.2.2).
            guard let close = authority.firstIndex(of: "]") else { return nil }
            host = authority[...close]
            let after = authority[authority.index(after: close)...]
            guard after.isEmpty || after.hasPrefix(":") else { return nil }
            portText = after.isEmpty ? nil : after.dropFirst()
            guard host.count > 2, host.dropFirst().dropLast().allSatisfy({ $0.isHexDigit || $0 == ":" || $0 == "." }) else { return nil }
        } else if let colon = authority.firstIndex(of: ":") {
            host = authority[..<colon]
            portText = authority[authority.index(after: colon)...]
        } else {
            host = authority
            portText = nil
        }
        guard !host.isEmpty, host.hasPrefix("[") || host.utf8.allSatisfy(isHostByte) else { return nil }

        var origin = "\(scheme)://\(host.lowercased())"
        // An empty port (`host:`) means the default (RFC 3986 §3.2.3).
        if let portText, !portText.isEmpty {
            guard portText.utf8.count <= 5, portText.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }),
                  let port = Int(portText), (1...65535).contains(port) else { return nil }
            if port != defaultPort { origin += ":\(port)" }
        }
        return origin
    }

    /// Bytes allowed in a registered name or IPv4 host (RFC 3986 §3.2.2 unreserved characters and
    /// percent-encoding; the sub-delimiters are refused since no push service uses them).
    private static func isHostByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"): true
        case UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"), UInt8(ascii: "%"): true
        default: false
        }
    }
}
