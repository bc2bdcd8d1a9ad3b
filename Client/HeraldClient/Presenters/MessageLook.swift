import HeraldRules

/// How one message of a thread looks: the time faint, the sender's name in their nick colour (``NickColour``), mine
/// as a bold "You", a message that mentions me (N2: `@` and my id, as ``MentionParser`` reads it) in the mention style, a placeholder faint, and every
/// row of the selected message in reverse video. Only style marks are added (``TerminalStyle``); the text and its
/// columns stay exactly what ``ThreadLayout`` measured.
struct MessageLook {
    var line: ScreenModel.ThreadLine
    var mentionsMe: Bool
    var selected: Bool

    init(_ line: ScreenModel.ThreadLine, me: String, selected: Bool) {
        self.line = line
        self.selected = selected
        mentionsMe = !line.isMine && !line.unsent && MentionParser.mentions(in: line.text, participants: [me]) == [me]
    }

    /// The first row: `HH:MM Name: text`.
    func firstRow(time: String, text part: String) -> String {
        let timeText = TerminalStyle.styled(time, .faint)
        if line.unsent { return row("\(timeText) \(TerminalStyle.styled(part, .faint))") }
        let name = TerminalStyle.styled(ThreadLayout.label(line), line.isMine ? .mine : NickColour.mark(of: line.sender))
        return row("\(timeText) \(name): \(self.text(part))")
    }

    /// A part of the message's text in its style.
    func text(_ part: String) -> String {
        if line.unsent { return TerminalStyle.styled(part, .faint) }
        return mentionsMe ? TerminalStyle.styled(part, .mention) : part
    }

    /// A row of this message, marked as selected when it is.
    func row(_ text: String) -> String {
        selected ? String(Character(TerminalStyle.selectedRow)) + text : text
    }
}

/// The colour of a toast by its kind (T rules): errors red, warnings yellow, success green, information cyan.
enum ToastLook {
    static func mark(of kind: ToastKind) -> TerminalStyle.Mark {
        switch kind {
        case .success: .good
        case .error: .bad
        case .warning: .warning
        case .info: .info
        case .custom: .custom
        }
    }
}
