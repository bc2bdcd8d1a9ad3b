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

    /// What stands between the time and the text: `Name: `, or nothing for an unsent message's placeholder, which
    /// names the sender itself.
    public static func lead(_ line: ScreenModel.ThreadLine) -> String { line.unsent || line.isSystem ? "" : label(line) + ": " }

    /// The message's text as shown (an image shows its URL; M1: an edited one says so; M2: an unsent one is a placeholder).
    public static func body(_ line: ScreenModel.ThreadLine) -> String {
        if line.unsent { return "\(label(line)) unsent a message" }
        // G5: a notice between dashes, with no "Name:" before it, so it never reads as anyone's message.
        if line.isSystem { return "-- \(line.text) --" }
        if line.edited { return text(line) + " (edited)" }
        return text(line)
    }

    /// The message's content: its text, or an image's URL and caption.
    private static func text(_ line: ScreenModel.ThreadLine) -> String {
        if let url = line.imageURL { return line.text.isEmpty ? "[image] \(url)" : "[image] \(url) \(line.text)" }
        return line.text
    }

    /// The wrapped text lines of a message (without divider and receipt lines), the first after `HH:MM Name: `.
    public static func textLines(_ line: ScreenModel.ThreadLine, width: Int, suffix: String = "") -> [String] {
        let prefix = indent + DisplayWidth.of(lead(line))
        return TextWrap.lines(body(line) + suffix, first: width - prefix, rest: width - indent)
    }

    /// Rows the message takes: its text lines, plus the date separator and divider above and the receipt line below
    /// when it has them.
    public static func rows(_ line: ScreenModel.ThreadLine, width: Int) -> Int {
        textLines(line, width: width).count + leadRows(line) + (line.seenBy == nil ? 0 : 1) + (line.reactions == nil ? 0 : 1)
    }

    /// Rows above the message's text that only decorate it (date separator, "new" divider): the message is read
    /// without them having been on screen (U2).
    public static func leadRows(_ line: ScreenModel.ThreadLine) -> Int {
        (line.dayAbove == nil ? 0 : 1) + (line.unreadDividerAbove ? 1 : 0)
    }

    /// Rows of a send still waiting for the server.
    public static func rows(pending: ScreenModel.PendingLine, width: Int) -> Int {
        TextWrap.lines(pending.text + pendingMark, first: width - indent - 5, rest: width - indent).count
    }

    /// Shown after a send the server has not acknowledged.
    public static let pendingMark = "  (sending…)"
}
