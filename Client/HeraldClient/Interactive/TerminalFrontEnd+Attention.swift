import HeraldProtocol
import HeraldRules

/// What the terminal does to draw attention: the mute and quiet-hours state in the header (N1, N3), and the bell.
extension TerminalFrontEnd {
    /// The header's note of what keeps alerts away: the open conversation muted, quiet hours on.
    static func alertState(_ model: ScreenModel, quiet: Bool) -> String {
        var notes: [String] = []
        if let open = model.scene.conversation, model.conversations.first(where: { $0.id == open })?.muted == true {
            notes.append(TerminalStyle.styled("🔕 muted", .warning))
        }
        if quiet { notes.append(TerminalStyle.styled("☾ quiet hours", .warning)) }
        return notes.isEmpty ? "" : " · " + notes.joined(separator: " · ")
    }

    /// Whether a message that came in since the last redraw rings the bell (``AttentionBell``); forgets them.
    func ringsBell(_ core: ClientCore, scene: Scene) -> Bool {
        defer { arrivals = [] }
        guard bell else { return false }
        let me = core.user
        let looking = scene.isForeground ? scene.conversation : nil
        return arrivals.contains { message in
            let arrival = AttentionBell.Arrival(
                conversation: message.conversation, fromMe: message.sender == me,
                direct: core.directory[message.conversation].map { $0.kind != .group } ?? false,
                mentionsMe: message.mentions?.contains(me) ?? false, muted: core.alerts.isMuted(message.conversation))
            return AttentionBell.rings(arrival, enabled: true, looking: looking, quiet: core.alerts.quiet)
        }
    }
}
