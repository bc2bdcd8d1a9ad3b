import HeraldProtocol
import HeraldStoreProtocol

/// What makes a push target valid: the one rule for `push.register` on /sync and the backend API.
///
/// A bad target is refused when it is registered, with a message that names the field, instead of failing at the
/// provider for every message after (and a Web Push endpoint is an address the server will POST to, so only https,
/// or plain http on loopback when the server allows it for tests, is taken).
enum PushTargetRules {
    /// The target `registration` describes for `user`'s device `device`, or the reason it is refused.
    static func target(
        user: String, device: String, registration: PushRegistration, settings: PushSettings, now: Int64
    ) throws(ErrorInfo) -> PushTargetRecord {
        guard let provider = PushProvider(rawValue: registration.provider) else {
            throw ErrorInfo(
                .badRequest,
                "unknown push provider '\(registration.provider.prefix(32))': one of \(PushProvider.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        // A well-formed request this server cannot take as it is configured: a conflict with its set-up, not bad input.
        guard settings.providers.contains(provider) else {
            throw ErrorInfo(.conflict, "this server has no credentials for \(provider.rawValue) pushes; its operator must configure them")
        }
        var target = PushTargetRecord(user: user, device: device, provider: provider, token: "", updatedAt: now)
        switch provider {
        case .apns:
            try refuse(["endpoint": registration.endpoint, "p256dh": registration.p256dh, "auth": registration.auth], for: provider)
            let token = try required(registration.token, "token")
            // APNs device tokens are hex: 32 bytes today, documented as variable length (up to 100 bytes).
            guard (64...200).contains(token.utf8.count), token.utf8.count % 2 == 0, token.utf8.allSatisfy(isHexDigit) else {
                throw ErrorInfo(.badRequest, "field 'token' must be an APNs device token: 64 to 200 hex digits")
            }
            let topic = try required(registration.topic, "topic")
            guard topic.utf8.count <= 255, topic.utf8.allSatisfy(isBundleIDCharacter) else {
                throw ErrorInfo(.badRequest, "field 'topic' must be the app's bundle id (letters, digits, '.', '-')")
            }
            target.token = token.lowercased()
            target.topic = topic
            target.sandbox = registration.sandbox ?? false
        case .fcm:
            try refuse(
                ["topic": registration.topic, "endpoint": registration.endpoint, "p256dh": registration.p256dh, "auth": registration.auth],
                for: provider)
            let token = try required(registration.token, "token")
            guard token.utf8.count <= 4096, token.utf8.allSatisfy(isTokenCharacter) else {
                throw ErrorInfo(.badRequest, "field 'token' must be an FCM registration token (letters, digits, '-', '_', ':', '.')")
            }
            target.token = token
        case .webpush:
            try refuse(["token": registration.token, "topic": registration.topic], for: provider)
            let endpoint = try required(registration.endpoint, "endpoint")
            if let port = invalidPort(endpoint) {
                throw ErrorInfo(.badRequest, "field 'endpoint' has port '\(port.prefix(16))': a port is a number from 1 to 65535")
            }
            guard isAllowedEndpoint(endpoint, loopbackHTTP: settings.allowsLoopbackHTTP) else {
                throw ErrorInfo(
                    .badRequest,
                    settings.allowsLoopbackHTTP
                        ? "field 'endpoint' must be an https:// URL with a DNS host name, or a loopback one (https:// or http://)"
                        : "field 'endpoint' must be an https:// URL with a DNS host name (no IP address or localhost)")
            }
            // RFC 8291 §3.2: the key is an uncompressed P-256 point (65 bytes, 0x04 first) and the secret 16 bytes;
            // unpadded base64url of those is exactly 87 and 22 characters, and 0x04 makes the first one 'B'.
            let p256dh = try required(registration.p256dh, "p256dh")
            guard p256dh.utf8.count == 87, p256dh.utf8.first == UInt8(ascii: "B"), p256dh.utf8.allSatisfy(isBase64URLCharacter) else {
                throw ErrorInfo(.badRequest, "field 'p256dh' must be a P-256 public key: 65 bytes uncompressed, base64url")
            }
            let auth = try required(registration.auth, "auth")
            guard auth.utf8.count == 22, auth.utf8.allSatisfy(isBase64URLCharacter) else {
                throw ErrorInfo(.badRequest, "field 'auth' must be a 16-byte authentication secret, base64url")
            }
            target.token = endpoint
            target.p256dh = p256dh
            target.auth = auth
        case .webhook:
            try refuse(["topic": registration.topic, "endpoint": registration.endpoint, "p256dh": registration.p256dh, "auth": registration.auth], for: provider)
            let token = try required(registration.token, "token")
            guard token.utf8.count <= 256, token.utf8.allSatisfy(isTokenCharacter) else {
                throw ErrorInfo(.badRequest, "field 'token' must be the app's id for the device: up to 256 letters, digits, '-', '_', ':', '.'")
            }
            target.token = token
        }
        return target
    }

    /// `https://host[:port]/…` with a public DNS host name (the server posts to it: no IP literal, `localhost` or
    /// single-label name, which would let any user make the server probe its own network, 169.254.169.254 and the
    /// like); with `loopbackHTTP` (tests) also loopback hosts, `127.x.y.z` / `localhost` / `[::1]`, over https or http.
    static func isAllowedEndpoint(_ endpoint: String, loopbackHTTP: Bool) -> Bool {
        guard !endpoint.utf8.contains(where: { $0 <= 0x20 || $0 >= 0x7F }) else { return false }
        let rest: Substring
        if endpoint.hasPrefix("https://") {
            rest = endpoint.dropFirst("https://".count)
        } else if loopbackHTTP, endpoint.hasPrefix("http://") {
            rest = endpoint.dropFirst("http://".count)
        } else {
            return false
        }
        let authority = rest.prefix { $0 != "/" && $0 != "?" }
        // No credentials in the URL, and a host to send to.
        guard !authority.isEmpty, !authority.contains("@") else { return false }
        if loopbackHTTP, isLoopback(authority) { return true }
        return endpoint.hasPrefix("https://") && ContentRules.isPublicAuthority(Substring(authority.lowercased()))
    }

    /// The port of an `http(s)://` URL's authority when it is given and is not 1-65535 (digits only); nil when the
    /// port is absent or valid, or the URL is not one to look at.
    static func invalidPort(_ endpoint: String) -> Substring? {
        let rest: Substring
        if endpoint.hasPrefix("https://") {
            rest = endpoint.dropFirst("https://".count)
        } else if endpoint.hasPrefix("http://") {
            rest = endpoint.dropFirst("http://".count)
        } else {
            return nil
        }
        let authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        // Credentials in the URL are refused for what they are (isAllowedEndpoint), not read as a port.
        guard !authority.contains("@") else { return nil }
        let hostEnd = authority.hasPrefix("[") ? authority.firstIndex(of: "]").map { authority.index(after: $0) } : authority.firstIndex(of: ":")
        guard let hostEnd, hostEnd < authority.endIndex, authority[hostEnd] == ":" else { return nil }
        let port = authority[authority.index(after: hostEnd)...]
        guard (1...5).contains(port.utf8.count), port.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }),
            let number = Int(port), (1...65_535).contains(number)
        else { return port }
        return nil
    }

    /// `127.x.y.z`, `localhost` or `[::1]`, with any port.
    private static func isLoopback(_ authority: Substring) -> Bool {
        let host = authority.hasPrefix("[") ? String(authority.prefix { $0 != "]" }) + "]" : String(authority.prefix { $0 != ":" })
        return host == "localhost" || host == "[::1]" || host.hasPrefix("127.")
    }

    private static func required(_ value: String?, _ name: String) throws(ErrorInfo) -> String {
        guard let value, !value.isEmpty else { throw ErrorInfo(.badRequest, "missing field '\(name)'") }
        return value
    }

    /// Fields of another provider mean the client is confused about which provider it registers; refusing them says so.
    private static func refuse(_ fields: [String: String?], for provider: PushProvider) throws(ErrorInfo) {
        for (name, value) in fields.sorted(by: { $0.key < $1.key }) where value != nil {
            throw ErrorInfo(.badRequest, "field '\(name)' does not belong to a \(provider.rawValue) target")
        }
    }

    private static func isHexDigit(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte)
            || (UInt8(ascii: "A")...UInt8(ascii: "F")).contains(byte)
    }

    private static func isAlphanumeric(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
            || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
    }

    private static func isBundleIDCharacter(_ byte: UInt8) -> Bool {
        isAlphanumeric(byte) || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "-")
    }

    private static func isTokenCharacter(_ byte: UInt8) -> Bool {
        isAlphanumeric(byte) || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: ":") || byte == UInt8(ascii: ".")
    }

    private static func isBase64URLCharacter(_ byte: UInt8) -> Bool {
        isAlphanumeric(byte) || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
    }
}
