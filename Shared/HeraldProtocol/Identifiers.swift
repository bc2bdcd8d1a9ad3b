/// The one rule for every identifier and display name that enters Herald: token minting and verification, the
/// backend API and herald.v1 requests all check here.
///
/// Identifiers are ASCII on purpose. Swift compares and hashes `String` by Unicode canonical equivalence while
/// SQLite and PostgreSQL compare bytes, so `"Kate"` and `"\u{212A}ate"` (a Kelvin sign) are one key in the server's
/// dictionaries and two rows in the database: two users would share one identity in memory. Two ASCII strings are
/// canonically equivalent only when their bytes are equal, so with ASCII identifiers memory and storage agree.
public enum Identifiers {
    /// Longest identifier in bytes (= characters, all ASCII).
    public static let maxLength = 128
    /// Longest display name in Unicode scalars.
    public static let maxDisplayNameLength = 100

    /// The rule for user ids, in words (error messages and the README say exactly this).
    public static let userIdRule = "1-128 characters of A-Z a-z 0-9 . _ @ - (not starting with . or @)"
    /// The rule for every other id (conversation, message, notification, client message id, tab), in words.
    public static let idRule = "1-128 printable ASCII characters (no spaces)"

    /// A user id: `^[A-Za-z0-9_-][A-Za-z0-9._@-]{0,127}$`. Safe in URL paths, deep links and log lines.
    public static func isUserId(_ text: String) -> Bool {
        var bytes = text.utf8.makeIterator()
        guard let first = bytes.next(), isUserIdStart(first) else { return false }
        var count = 1
        while let byte = bytes.next() {
            count += 1
            guard count <= maxLength, isUserIdStart(byte) || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "@") else { return false }
        }
        return true
    }

    /// Any other id: 1-128 bytes of `!`...`~` (printable ASCII without space). Server-made ids (`c12`, `m34`, `n5`)
    /// and the client's own (`alice-phone-7`) all fit.
    public static func isId(_ text: String) -> Bool {
        var count = 0
        for byte in text.utf8 {
            count += 1
            guard count <= maxLength, byte >= 0x21, byte <= 0x7E else { return false }
        }
        return count > 0
    }

    /// A display name: 1-100 Unicode scalars, none of them a control character or a line/paragraph separator, so a
    /// name pasted into a bell text, a push preview or a terminal line can never break or forge a line.
    public static func isDisplayName(_ text: String) -> Bool {
        var count = 0
        for scalar in text.unicodeScalars {
            count += 1
            guard count <= maxDisplayNameLength, !isControlOrSeparator(scalar) else { return false }
        }
        return count > 0
    }

    /// A device name (the `device` of a /sync upgrade or a token): 1-64 of `A-Z a-z 0-9 . _ -`.
    public static func isDeviceName(_ text: String) -> Bool {
        var count = 0
        for byte in text.utf8 {
            count += 1
            guard count <= 64, isUserIdStart(byte) || byte == UInt8(ascii: ".") else { return false }
        }
        return count > 0
    }

    /// The rule for device names, in words.
    public static let deviceNameRule = "1-64 characters of A-Z a-z 0-9 . _ -"

    /// The rule for display names, in words.
    public static let displayNameRule = "1-100 characters, no control characters, line breaks or bidirectional overrides"

    /// A label other people see beside names (a group title): any text whose scalars are not controls, line or
    /// paragraph separators or bidirectional overrides/isolates, as for a display name. Every participant's screen shows
    /// it with no action of theirs (anyone may add anyone to a group), so it must never carry what a terminal obeys
    /// or what makes it read as something else. Its length is the caller's rule.
    public static func isLabel(_ text: String) -> Bool {
        !text.unicodeScalars.contains(where: isControlOrSeparator)
    }

    /// ``isLabel(_:)`` in words.
    public static let labelRule = "text without control characters, line breaks or bidirectional overrides (U+202A-U+202E, U+2066-U+2069)"

    private static func isUserIdStart(_ byte: UInt8) -> Bool {
        (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
            || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-")
    }

    /// C0 and C1 controls, DEL, the line and paragraph separators and the bidirectional overrides/isolates (which
    /// can make a name read as something else).
    static func isControlOrSeparator(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F, 0x2028, 0x2029, 0x202A...0x202E, 0x2066...0x2069: true
        default: false
        }
    }
}
