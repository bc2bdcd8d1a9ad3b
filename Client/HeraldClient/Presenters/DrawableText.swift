import HeraldRules

// What others wrote enters the screen model as drawable text (TerminalText), before any width is measured or any
// line wrapped: what the layout counts (and the viewport sizes, U2) is exactly what is drawn, and a message's own
// line breaks are rows inside its own cells. The terminal front end checks every row once more before writing it.

extension ScreenModel.ThreadLine {
    /// The line with its sender's name, text, image URL and receipt as drawable text.
    public var drawable: Self {
        var line = self
        line.senderName = PeerText.line(senderName)
        line.text = PeerText.lines(text)
        line.imageURL = imageURL.map(PeerText.line)
        line.seenBy = seenBy.map(PeerText.line)
        line.reactions = reactions.map(PeerText.line)
        return line
    }
}

extension ScreenModel.PendingLine {
    /// The send with its text as drawable text.
    public var drawable: Self {
        var line = self
        line.text = PeerText.lines(text)
        return line
    }
}

extension ScreenModel {
    /// The model with every text someone else could have written as drawable text: conversation titles and
    /// previews, the thread's title, members, messages and pending sends, the toast, the bell items, the typing line.
    public var drawable: Self {
        var model = self
        model.user = PeerText.line(user)
        model.conversations = conversations.map { row in
            var row = row
            row.title = PeerText.line(row.title)
            row.preview = PeerText.line(row.preview)
            return row
        }
        model.bellItems = bellItems.map { item in
            var item = item
            item.text = PeerText.line(item.text)
            return item
        }
        model.thread = thread.map(\.drawable)
        model.pending = pending.map(\.drawable)
        model.threadTitle = PeerText.line(threadTitle)
        model.threadMembers = threadMembers.map(PeerText.line)
        model.typingLine = typingLine.map(PeerText.line)
        if var toast {
            toast.title = PeerText.line(toast.title)
            toast.text = PeerText.line(toast.text)
            model.toast = toast
        }
        return model
    }
}

/// Text someone else wrote as this terminal draws it: drawable (TerminalText) and without style marks
/// (``TerminalStyle``), so neither a control nor a colour of theirs reaches the screen.
enum PeerText {
    static func line(_ text: String) -> String { TerminalStyle.unmarked(TerminalText.line(text)) }
    static func lines(_ text: String) -> String { TerminalStyle.unmarked(TerminalText.lines(text)) }
}
