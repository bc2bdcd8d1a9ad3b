/// T10: the words of a message toast. The server reuses this for push previews (P2).
public enum ToastText {
    /// The longest body, in `Character`s (grapheme clusters), before it is cut.
    public static let bodyLimit = 50
    /// Appended to a cut body.
    public static let ellipsis = "..."
    /// The body of an image message.
    public static let imageBody = "📷 Image"
    /// The body of a message without text.
    public static let emptyBody = "New message"

    /// The three strings of a message toast.
    public struct MessagePreview: Hashable, Sendable {
        /// "Sender", or "Group title - Sender" for a group.
        public var title: String
        /// The text cut to 50 characters plus "...", "📷 Image" or "New message".
        public var body: String
        /// The full, uncut text (or the body when there is no text).
        public var accessibilityLabel: String
    }

    /// Builds a message toast's title, body and accessibility label (T10).
    ///
    /// Cutting counts `Character`s, so an emoji (even a ZWJ family or a flag) or a letter with
    /// combining marks is never split.
    ///
    /// ```swift
    /// ToastText.messageToast(senderName: "Carol", groupTitle: "Team A", text: "hey", isImage: false)
    /// // title "Team A - Carol", body "hey", accessibilityLabel "hey"
    /// ```
    /// - Parameters:
    ///   - senderName: the sender's display name.
    ///   - groupTitle: the group's title, or nil (or empty) for a 1:1 conversation.
    ///   - text: the message text, or nil.
    ///   - isImage: whether the message is an image; an image reads "📷 Image".
    public static func messageToast(senderName: String, groupTitle: String?, text: String?, isImage: Bool) -> MessagePreview {
        let title: String
        if let groupTitle, !groupTitle.isEmpty {
            title = "\(groupTitle) - \(senderName)"
        } else {
            title = senderName
        }
        if isImage {
            return MessagePreview(title: title, body: imageBody, accessibilityLabel: imageBody)
        }
        guard let text, text.contains(where: { !$0.isWhitespace }) else {
            return MessagePreview(title: title, body: emptyBody, accessibilityLabel: emptyBody)
        }
        return MessagePreview(title: title, body: cut(text), accessibilityLabel: text)
    }

    /// The text cut to `limit` characters plus "..." when it is longer; unchanged otherwise.
    public static func cut(_ text: String, limit: Int = bodyLimit) -> String {
        // A text of at most `limit` bytes has at most `limit` characters.
        if text.utf8.count <= limit { return text }
        if let cut = asciiCut(text, limit: limit) { return cut }
        // One pass over at most limit + 1 characters: avoids counting a huge text just to compare.
        var end = text.startIndex
        var taken = 0
        while taken < limit, end < text.endIndex {
            end = text.index(after: end)
            taken += 1
        }
        if end == text.endIndex { return text }
        return String(text[..<end]) + ellipsis
    }

    /// The cut of a text whose first `limit + 1` bytes are ASCII other than CR, without walking grapheme clusters
    /// (a push preview's text was cut that way for every message sent, about 4% of a send's instructions): between
    /// two such bytes there is always a character boundary (UAX #29: neither is CR, Extend, ZWJ, SpacingMark or
    /// Prepend), so the first `limit` characters are the first `limit` bytes and there is at least one more. Nil
    /// when the text does not start that way.
    private static func asciiCut(_ text: String, limit: Int) -> String? {
        guard limit > 0 else { return nil }
        let head: String?? = text.utf8.withContiguousStorageIfAvailable { bytes in
            guard bytes.count > limit else { return nil }
            for index in 0...limit where bytes[index] >= 0x80 || bytes[index] == 0x0D { return nil }
            return String(decoding: UnsafeBufferPointer(rebasing: bytes[..<limit]), as: UTF8.self)
        }
        guard let cut = head.flatMap({ $0 }) else { return nil }
        return cut + ellipsis
    }
}
