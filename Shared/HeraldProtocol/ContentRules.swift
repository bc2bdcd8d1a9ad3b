/// The one check of user-supplied content that other people's devices will open or show: image URLs, notification
/// links and reaction emoji. herald.v1 requests and the backend API both call these, so neither entry point accepts
/// what the other refuses.
public enum ContentRules {
    /// The URL rule, in words.
    public static let urlRule = "an http:// or https:// URL with a DNS host name (no credentials, IP addresses or localhost), printable ASCII only"
    /// ``isWebURL(_:)`` as a regular expression for openapi.json's `pattern` (ECMA 262, as JSON Schema reads it). An
    /// ICU or PCRE `$` also matches before one final line break, so such engines accept `"…\n"`, which the code refuses.
    public static let webURLPattern = "^" + notLocalhost + webURLBody + "$"
    /// ``isLink(_:)`` as a regular expression.
    public static let linkPattern = "^([Hh][Ee][Rr][Aa][Ll][Dd]://[!-~]+|" + notLocalhost + webURLBody + ")$"
    private static let webURLBody = #"[Hh][Tt][Tt][Pp][Ss]?://([A-Za-z0-9-]{1,63}\.)+[A-Za-z]{2,63}(:[0-9]{1,5})?([/?#][!-~]*)?"#
    private static let notLocalhost = #"(?![Hh][Tt][Tt][Pp][Ss]?://[^/?#]*\.[Ll][Oo][Cc][Aa][Ll][Hh][Oo][Ss][Tt]([:/?#]|$))"#
    /// The notification link rule, in words.
    public static let linkRule = "an http:// or https:// URL (see imageURL) or a herald:// deep link"
    /// The reaction rule, in words.
    public static let reactionRule = "one emoji (a single character of at most 32 bytes, no control characters)"

    /// Whether `text` is a URL other devices may fetch: `http`/`https` (any case), then a DNS host name, an optional
    /// port, and an optional path, query or fragment of printable ASCII (percent-encode the rest). No `user:password@`,
    /// no IP literals and no `localhost`: a device fetching such a URL would probe its own network (169.254.169.254,
    /// 127.0.0.1, 10.x), and numeric hosts have too many spellings (`2130706433`, `0x7f.1`) to refuse one by one.
    /// openapi.json states the same rule as ``webURLPattern``.
    public static func isWebURL(_ text: String) -> Bool {
        guard text.utf8.allSatisfy({ $0 >= 0x21 && $0 <= 0x7E }) else { return false }
        let lower = text.lowercased()
        let rest: Substring
        if lower.hasPrefix("https://") { rest = lower.dropFirst(8) } else if lower.hasPrefix("http://") { rest = lower.dropFirst(7) } else { return false }
        return isPublicAuthority(rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" })
    }

    /// A URL's `host[:port]`, lowercase, naming a public DNS host (``isPublicHostName(_:)``) and at most a numeric port:
    /// what the server itself may send to as well (a Web Push endpoint), for the same reasons as ``isWebURL(_:)``.
    public static func isPublicAuthority(_ authority: Substring) -> Bool {
        let hostAndPort = authority.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
        if hostAndPort.count == 2 {
            let port = hostAndPort[1]
            guard (1...5).contains(port.count), port.allSatisfy({ ("0"..."9").contains($0) }) else { return false }
        }
        return isPublicHostName(hostAndPort[0])
    }

    /// Whether `text` (a message, a caption, a title, a notification) can be stored as it is: anything but U+0000,
    /// which PostgreSQL's `text` cannot hold (SQLite can), so that every store keeps the same messages and one such
    /// request never fails a whole batch of others on a PostgreSQL node.
    public static func isStorableText(_ text: String) -> Bool {
        // Over the contiguous bytes where a String has them (a message's text always): the generic scan of the UTF-8
        // view cost ~30 instructions a byte, a tenth of decoding a send.
        text.utf8.withContiguousStorageIfAvailable { bytes in !bytes.contains(0) } ?? !text.utf8.contains(0)
    }

    /// ``isStorableText(_:)`` in words.
    public static let storableTextRule = "text without the NUL character (U+0000)"

    /// A notification's link: a web URL by ``isWebURL(_:)`` or an app deep link (`herald://…`, printable ASCII).
    public static func isLink(_ text: String) -> Bool {
        if text.lowercased().hasPrefix("herald://") { return text.utf8.count > 9 && text.utf8.allSatisfy { $0 >= 0x21 && $0 <= 0x7E } }
        return isWebURL(text)
    }

    /// A reaction: exactly one grapheme cluster (👍, ❤️, 👩‍👩‍👧, 🇫🇷) of at most 32 bytes, none of its scalars a control
    /// character, separator or bidirectional override, so it cannot break or forge a line of the bell text.
    public static func isReaction(_ text: String) -> Bool {
        guard !text.isEmpty, text.utf8.count <= 32, text.count == 1 else { return false }
        return !text.unicodeScalars.contains { Identifiers.isControlOrSeparator($0) || $0.properties.isWhitespace }
    }

    // MARK: - Host names

    /// Dot-separated labels of letters, digits and `-` (1-63 each), at least two, the last all letters (a top-level
    /// domain, so never an IP address in any notation), and not `localhost` (RFC 6761: always loopback).
    private static func isPublicHostName(_ host: Substring) -> Bool {
        let labels = host.split(separator: ".", omittingEmptySubsequences: false)
        guard labels.count >= 2, let top = labels.last, (2...63).contains(top.count), top.allSatisfy({ ("a"..."z").contains($0) }),
              top != "localhost"
        else { return false }
        return labels.dropLast().allSatisfy { label in
            (1...63).contains(label.count) && label.allSatisfy { ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "-" }
        }
    }
}
