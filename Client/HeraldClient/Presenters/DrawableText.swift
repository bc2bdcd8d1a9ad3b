import HeraldRules

// What others wrote enters the screen model as drawable text (TerminalText), before any width is measured or any
// line wrapped: what the layout counts (and the viewport sizes, U2) is exactly what is drawn, and a message's own
// line breaks are rows inside its own cells. The terminal front end checks every row once more before writing it.

extension ScreenModel.ThreadLine {
    /// The line with its sender's name, text, image URL and receipt as drawable text.
    public var drawable: Self {
        var line = self
        line.senderName = TerminalText.line(senderName)
        line.text = TerminalText.lines(text)
        line.imageURL = imageURL.map(TerminalText.line)
        line.seenBy = seenBy.map(TerminalText.line)
        return line
    }
}

extension ScreenModel.PendingLine {
    /// The send with its text as drawable text.
    public var drawable: Self {
        var line = self
        line.text = TerminalText.lines(text)
        return line
    }
}

extension ScreenModel {
    /// The model with every text someone else could have written as drawable text: conversation titles and
    /// previews, the thread's title, members, messages and pending sends, the toast, the bell items, the typing line.
    public var drawable: Self {
        var model = self
        model.user = TerminalText.line(user)
        model.conversations = conversations.map { row in
            var row = row
            row.title = TerminalText.line(row.title)
            row.preview = TerminalText.line(row.preview)
            return row
        }
        model.bellItems = bellItems.map { item in
            var item = item
            item.text = TerminalText.line(item.text)
            return item
        }
        model.thread = thread.map(\.drawable)
        model.pending = pending.map(\.drawable)
        model.threadTitle = TerminalText.line(threadTitle)
        model.threadMembers = threadMembers.map(TerminalText.line)
        model.typingLine = typingLine.map(TerminalText.line)
        if var toast {
            toast.title = TerminalText.line(toast.title)
            toast.text = TerminalText.line(toast.text)
            model.toast = toast
        }
        return model
    }
}
