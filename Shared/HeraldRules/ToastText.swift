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
}
