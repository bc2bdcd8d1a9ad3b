/// Select mode's state, sans-IO: which message of the open thread is picked, so `/edit`, `/unsend` and `/react` act
/// on any message in sight instead of only the newest one. Ctrl-S picks the newest message shown, the arrows move
/// the pick over the messages shown, `e`/`u`/`r` act on it, Esc leaves.
struct MessageSelection: Equatable {
    /// A message that can be picked: what the commands and the notices need of it.
    struct Target: Equatable, Sendable {
        var id: String
        var mine: Bool
        var unsent: Bool
        var senderName: String
        /// Its text as drawn (what `e` puts into the composer to change).
        var text: String
    }

    /// The messages in sight at the last redraw, oldest first.
    var visible: [Target] = []
    /// The picked message; nil: the commands act on the newest message, as without select mode.
    private(set) var target: Target?
    /// The conversation the pick belongs to.
    private(set) var conversation: String?
    /// The arrows move the pick (select mode); false once `e` or `r` put a command into the composer that acts on it.
    var moving = false

    /// Enters select mode on the newest message in sight of `conversation`; false when none is.
    mutating func enter(in conversation: String) -> Bool {
        guard let newest = visible.last else { return false }
        target = newest
        self.conversation = conversation
        moving = true
        return true
    }

    /// Moves the pick `step` messages (negative: older) among those in sight; false when it is already at that edge
    /// (the thread then scrolls to bring more into sight).
    mutating func move(_ step: Int) -> Bool {
        guard let target, let index = visible.firstIndex(where: { $0.id == target.id }) else {
            self.target = step < 0 ? visible.first : visible.last
            return self.target != nil
        }
        let next = index + step
        guard visible.indices.contains(next) else { return false }
        self.target = visible[next]
        return true
    }

    mutating func clear() {
        target = nil
        conversation = nil
        moving = false
    }

    /// Keeps the pick current after a redraw: gone when another scene opened, or when the command it was kept for
    /// left the composer (sent, or cleared); a picked message that changed (edited, unsent) is taken as it is now.
    mutating func settle(scene conversation: String?, composer: String) {
        guard let target else { return }
        if conversation != self.conversation || (!moving && !composer.hasPrefix("/")) {
            clear()
            return
        }
        if let now = visible.first(where: { $0.id == target.id }) { self.target = now }
    }
}
