/// D1: the only four deep links Herald follows.
///
/// ```swift
/// let link = try DeepLink(parsing: "herald://conversation/c1/message/m7")
/// // .message(conversation: "c1", message: "m7"); link.url round-trips
/// ```
public enum DeepLink: Hashable, Sendable, CustomStringConvertible {
    /// `herald://messages`: the conversation list.
    case messages
    /// `herald://conversation/<id>`: a thread, at its bottom.
    case conversation(String)
    /// `herald://conversation/<id>/message/<mid>`: a thread, at one message.
    case message(conversation: String, message: String)
    /// `herald://notifications`: the bell feed.
    case notifications

    /// The only scheme, compared exactly (lower case).
    public static let scheme = "herald"
    /// The longest accepted link, in bytes: three ids and the fixed parts fit well inside.
    public static let maximumLength = 512
    /// The longest accepted conversation or message id, in characters.
    public static let maximumIDLength = 128

    /// The link's canonical text; `DeepLink(parsing: link.url)` gives `link` back.
    public var url: String {
        switch self {
        case .messages: "herald://messages"
        case .conversation(let id): "herald://conversation/\(id)"
        case .message(let conversation, let message): "herald://conversation/\(conversation)/message/\(message)"
        case .notifications: "herald://notifications"
        }
    }

    /// The conversation the link names, if any.
    public var conversation: String? {
        switch self {
        case .conversation(let id), .message(let id, _): id
        case .messages, .notifications: nil
        }
    }

    /// The link's text.
    public var description: String { url }

    /// Parses exactly one of the four D1 forms; anything else throws a `DeepLinkError` naming what is wrong.
    ///
    /// Strict on purpose: the scheme and host are compared exactly (no case folding), ids are 1–128 of
    /// `[A-Za-z0-9_-]`, and there is no percent-decoding, query, fragment, user, port, empty segment or trailing slash.
    public init(parsing text: String) throws(DeepLinkError) {
        self = try DeepLinkParser.parse(text)
    }

    /// Non-throwing form of `init(parsing:)`.
    public static func parse(_ text: String) -> Result<DeepLink, DeepLinkError> {
        do throws(DeepLinkError) {
            return .success(try DeepLink(parsing: text))
        } catch {
            return .failure(error)
        }
    }

    /// Whether `id` is a valid conversation or message id: 1–128 characters of `[A-Za-z0-9_-]`.
    public static func isValidID(_ id: String) -> Bool {
        (try? DeepLinkParser.validateID(Substring(id), role: .conversation)) != nil
    }
}

/// Why a string is not a Herald deep link (D1). Each case says what was wrong; `code` is the client's error code.
public enum DeepLinkError: Error, Hashable, Sendable, CustomStringConvertible {
    /// Which id a problem is about.
    public enum IDRole: String, Hashable, Sendable {
        /// The conversation id.
        case conversation
        /// The message id.
        case message
    }

    /// The link is empty.
    case empty
    /// The link is longer than `DeepLink.maximumLength` bytes.
    case tooLong(length: Int)
    /// The link does not start with `herald://` exactly (another scheme, upper case, missing "//", spaces).
    case wrongScheme
    /// The host is not messages, conversation or notifications, compared exactly.
    case unknownHost(String)
    /// A `?` query or `#` fragment is present.
    case queryOrFragment
    /// A `%` escape is present; ids are never percent-encoded.
    case percentEncoding
    /// The link ends with `/`.
    case trailingSlash
    /// An empty path segment, e.g. `conversation//message/m1`.
    case emptySegment
    /// Path segments after the last allowed one, or a wrong keyword where `message` belongs.
    case unexpectedPath(String)
    /// `herald://conversation` without an id, or `…/message` without a message id.
    case missingID(IDRole)
    /// An id longer than `DeepLink.maximumIDLength`.
    case idTooLong(IDRole, length: Int)
    /// An id with a character outside `[A-Za-z0-9_-]`.
    case invalidIDCharacter(IDRole, Character)

    /// The client's error code for every malformed link (client-script.md).
    public var code: String { "invalid_link" }

    /// One line naming the cause.
    public var description: String {
        switch self {
        case .empty: "the link is empty"
        case .tooLong(let length): "the link is \(length) bytes long; at most \(DeepLink.maximumLength) are allowed"
        case .wrongScheme: "the link must start with herald://"
        case .unknownHost(let host): "unknown link target '\(host)'; expected messages, conversation or notifications"
        case .queryOrFragment: "links take no query (?) or fragment (#)"
        case .percentEncoding: "links take no percent-encoding (%)"
        case .trailingSlash: "the link must not end with /"
        case .emptySegment: "the link has an empty path segment (//)"
        case .unexpectedPath(let rest): "unexpected path '\(rest)'"
        case .missingID(let role): "the \(role.rawValue) id is missing"
        case .idTooLong(let role, let length):
            "the \(role.rawValue) id is \(length) characters long; at most \(DeepLink.maximumIDLength) are allowed"
        case .invalidIDCharacter(let role, let character):
            "the \(role.rawValue) id contains '\(character)'; only A-Z, a-z, 0-9, _ and - are allowed"
        }
    }
}

/// The D1 grammar, checked cheapest-first so a hostile string is refused before it is split.
enum DeepLinkParser {
    static func parse(_ text: String) throws(DeepLinkError) -> DeepLink {
        if text.isEmpty { throw .empty }
        let length = text.utf8.count
        if length > DeepLink.maximumLength { throw .tooLong(length: length) }
        let prefix = DeepLink.scheme + "://"
        guard text.hasPrefix(prefix) else { throw .wrongScheme }
        let rest = text.dropFirst(prefix.count)
        if rest.contains("?") || rest.contains("#") { throw .queryOrFragment }
        if rest.contains("%") { throw .percentEncoding }
        if rest.hasSuffix("/") { throw .trailingSlash }
        let segments = rest.split(separator: "/", omittingEmptySubsequences: false)
        guard let host = segments.first, !host.isEmpty else { throw .unknownHost("") }
        if segments.dropFirst().contains(where: \.isEmpty) { throw .emptySegment }
        let path = segments.dropFirst()
        switch host {
        case "messages", "notifications":
            guard path.isEmpty else { throw .unexpectedPath(path.joined(separator: "/")) }
            return host == "messages" ? .messages : .notifications
        case "conversation":
            guard let conversation = path.first else { throw .missingID(.conversation) }
            try validateID(conversation, role: .conversation)
            let tail = path.dropFirst()
            if tail.isEmpty { return .conversation(String(conversation)) }
            guard tail.first == "message" else { throw .unexpectedPath(tail.joined(separator: "/")) }
            let afterKeyword = tail.dropFirst()
            guard let message = afterKeyword.first else { throw .missingID(.message) }
            try validateID(message, role: .message)
            guard afterKeyword.count == 1 else { throw .unexpectedPath(afterKeyword.dropFirst().joined(separator: "/")) }
            return .message(conversation: String(conversation), message: String(message))
        default:
            // Also catches host case tricks ("Messages"), users ("a@messages") and ports ("messages:80").
            throw .unknownHost(String(host))
        }
    }

    static func validateID(_ id: Substring, role: DeepLinkError.IDRole) throws(DeepLinkError) {
        if id.isEmpty { throw .missingID(role) }
        if let bad = id.first(where: { !isIDCharacter($0) }) { throw .invalidIDCharacter(role, bad) }
        // All characters are ASCII here, so the count is cheap and equals the byte count.
        if id.count > DeepLink.maximumIDLength { throw .idTooLong(role, length: id.count) }
    }

    private static func isIDCharacter(_ character: Character) -> Bool {
        guard character.unicodeScalars.count == 1, let scalar = character.unicodeScalars.first, scalar.isASCII else { return false }
        switch scalar.value {
        case 0x30...0x39, 0x41...0x5A, 0x61...0x7A, 0x5F, 0x2D: return true  // 0-9 A-Z a-z _ -
        default: return false
        }
    }
}
