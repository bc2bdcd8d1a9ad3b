/// How thread messages are laid out on a terminal, shared by the presenter that draws them and the core that sizes
/// the viewport (so what counts as visible is exactly what is drawn).
///
/// A message is `HH:MM Name: text…`, wrapped with continuation lines indented under the text's start column of the
/// time; an unread divider goes above the first unread message, and a "Seen" line under your newest seen message.
public enum ThreadLayout {
    /// Columns of the `HH:MM ` time prefix, and the indent of continuation lines.
    public static let indent = 6

    /// The name shown before a message's text.
    public static func label(_ line: ScreenModel.ThreadLine) -> String { line.isMine ? "You" : line.senderName }

    /// The message's text as shown (an image shows its URL).
    public static func body(_ line: ScreenModel.ThreadLine) -> String {
        if let url = line.imageURL { return line.text.isEmpty ? "[image] \(url)" : "[image] \(url) \(line.text)" }
        return line.text
    }

    /// The wrapped text lines of a message (without divider and receipt lines), the first after `HH:MM Name: `.
    public static func textLines(_ line: ScreenModel.ThreadLine, width: Int, suffix: String = "") -> [String] {
        let prefix = indent + DisplayWidth.of(label(line)) + 2
        return TextWrap.lines(body(line) + suffix, first: width - prefix, rest: width - indent)
    }

    /// Rows the message takes: its text lines, plus the divider above and the receipt line below when it has them.
    public static func rows(_ line: ScreenModel.ThreadLine, width: Int) -> Int {
        textLines(line, width: width).count + (line.unreadDividerAbove ? 1 : 0) + (line.seenBy == nil ? 0 : 1)
    }

    /// Rows of a send still waiting for the server.
    public static func rows(pending: ScreenModel.PendingLine, width: Int) -> Int {
        TextWrap.lines(pending.text + pendingMark, first: width - indent - 5, rest: width - indent).count
    }

    /// Shown after a send the server has not acknowledged.
    public static let pendingMark = "  (sending…)"
}
