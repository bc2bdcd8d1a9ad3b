/// N2: which participants a message's text mentions (`@id`).
///
/// A mention is `@` followed by a user id, at the start of the text or after a character that cannot be part of an id
/// (so `alice@example.org` mentions nobody). Only ids of the conversation's participants count: anything else after an
/// `@` is plain text. A sentence may end right after a mention ("thanks @bob."), so trailing dots are not part of it.
///
/// ```swift
/// MentionParser.mentions(in: "@bob can you look? cc @carol.", participants: ["alice", "bob", "carol"])  // ["bob", "carol"]
/// ```
public enum MentionParser {
    /// The participants `text` mentions, each once, in the order of their first mention.
    public static func mentions(in text: String?, participants: some Sequence<String>) -> [String] {
        // Most texts mention nobody: their contiguous bytes are scanned for an `@` (the generic scan of the UTF-8 view
        // cost ~30 instructions a byte, 3,000 a 100-byte group message).
        guard let text, text.utf8.withContiguousStorageIfAvailable({ $0.contains(UInt8(ascii: "@")) }) ?? text.utf8.contains(UInt8(ascii: "@"))
        else { return [] }
        let members = Set(participants)
        var found: [String] = []
        let bytes = Array(text.utf8)
        var index = 0
        while index < bytes.count {
            defer { index += 1 }
            guard bytes[index] == UInt8(ascii: "@"), index == 0 || !isIdByte(bytes[index - 1]) else { continue }
            var end = index + 1
            while end < bytes.count, isIdByte(bytes[end]) { end += 1 }
            var candidate = bytes[(index + 1)..<end]
            // A user id may itself hold dots, so the whole run is tried first, then without the sentence's full stop.
            var match = String(decoding: candidate, as: UTF8.self)
            if !members.contains(match) {
                while candidate.last == UInt8(ascii: ".") { candidate = candidate.dropLast() }
                match = String(decoding: candidate, as: UTF8.self)
            }
            if !match.isEmpty, members.contains(match), !found.contains(match) { found.append(match) }
            index = end - 1
        }
        return found
    }

    /// The bytes of a user id: `A-Z a-z 0-9 . _ @ -`.
    private static func isIdByte(_ byte: UInt8) -> Bool {
        (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
            || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-")
            || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "@")
    }
}
