import HeraldRules

/// Select mode's keys (``MessageSelection``): Ctrl-S picks the newest message in sight, ↑↓ move the pick (scrolling
/// the thread at its edges), `e` edits it, `u` unsends it (asks first), `r` reacts to it, Esc or Enter leaves. Only
/// one's own messages can be changed (M1, M2): a pick of someone else's says so instead.
extension TerminalFrontEnd {
    /// Ctrl-S in a thread.
    func enterSelection() -> [ClientInput] {
        guard let open = context.scene.conversation else { return [] }
        notice = selection.enter(in: open) ? Self.selectionHelp : "no message in sight to select"
        return []
    }

    static let selectionHelp = "select: ↑↓ pick · e edit · u unsend · r react · Esc done"

    /// What `key` does in select mode; nil when it is not select mode's key (select mode then ends, and the key does
    /// what it does anywhere).
    func selectionKey(_ key: Key) -> [ClientInput]? {
        guard selection.moving, let target = selection.target else { return nil }
        switch key {
        case .up, .down:
            let step = key == .up ? -1 : 1
            if selection.move(step) { return [] }
            return [.command(.scroll(step < 0 ? .up(1) : .down(1)))]
        case .escape, .enter:
            selection.clear()
            notice = ""
            return []
        case .text("e"):
            guard target.mine else { return refuse("edited", target) }
            guard !target.unsent else { return refuseUnsent() }
            selection.moving = false
            editor.replace(with: "/edit " + target.text)
            notice = "change the text and press Enter · Esc Esc leaves it"
            return []
        case .text("u"):
            guard target.mine else { return refuse("unsent", target) }
            guard !target.unsent else { return refuseUnsent() }
            awaitingConfirmation = ("Unsend your message? Everyone sees that it was taken back. (y/N)", [.command(.unsend(message: target.id))])
            selection.clear()
            return []
        case .text("r"):
            selection.moving = false
            editor.replace(with: "/react ")
            notice = "type an emoji and press Enter"
            return []
        default:
            selection.clear()
            notice = ""
            return nil
        }
    }

    /// M1/M2: someone else's message stays as they wrote it.
    private func refuse(_ verb: String, _ target: MessageSelection.Target) -> [ClientInput] {
        notice = "that is \(TerminalText.line(target.senderName))'s message: only your own can be \(verb) · r reacts to it"
        return []
    }

    private func refuseUnsent() -> [ClientInput] {
        notice = "that message was unsent: nothing left to change"
        return []
    }

    /// Brings select mode up to date with what the redraw shows.
    func settleSelection(_ model: ScreenModel) {
        selection.visible = model.thread.map {
            MessageSelection.Target(id: $0.id, mine: $0.isMine, unsent: $0.unsent, senderName: $0.senderName, text: $0.text)
        }
        selection.settle(scene: model.scene.conversation, composer: editor.text)
    }
}
