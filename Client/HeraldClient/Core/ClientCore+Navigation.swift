import HeraldProtocol
import HeraldRules

/// Moving through a thread beyond a page (Home, the first unread) and what the screen says about unread messages
/// above the window. Only what the window then holds is read (U2): a jump reads what it brings on screen.
extension ClientCore {
    /// Pages one `scroll top` / `scroll unread` loads at most (200 messages each): a conversation of a hundred
    /// thousand messages must not stall the client on one key; the next press goes on from there.
    static let seekPageLimit = 20

    /// `scroll top` / `scroll unread`: loads older pages until the target is loaded (the top of the history; the
    /// first message that was unread when the thread opened) or ``seekPageLimit`` pages were, then puts the target
    /// (or the oldest loaded message) at the window's top. `pages`: loaded for this command so far.
    mutating func seek(_ target: ClientCommand.ScrollMove, pages: Int, answers: Bool) {
        guard var viewport, scene.isViewing(viewport.conversation) else {
            return answerError(code: "not_in_thread", message: "scroll needs an open thread")
        }
        let conversation = viewport.conversation
        let hasOlder = threads[conversation]?.hasOlder ?? false
        let needsOlder: Bool
        switch target {
        case .firstUnread:
            guard let opened = openedUnread, opened.conversation == conversation, opened.count > 0, opened.divider != nil else {
                return answerError(code: "no_unread", message: "nothing was unread when this conversation was opened")
            }
            needsOlder = !opened.settled && hasOlder
        default:
            needsOlder = hasOlder
        }
        if needsOlder, connected, pages < Self.seekPageLimit {
            let oldest = threads[conversation]?.messages.first?.id
            request(.history(conversation: conversation, before: oldest, limit: 200),
                    purpose: .history(conversation: conversation, mode: .seek(target, pages: pages, answers: answers)))
            return
        }
        let change: ViewportChange
        if target == .firstUnread, let divider = openedUnread?.divider, let revealed = viewport.reveal(divider, atTop: true) {
            change = revealed
        } else {
            change = viewport.jumpToTop()
        }
        self.viewport = viewport
        reportScene()
        markVisible(change.becameVisible, answers: answers)
    }

    /// Messages that were unread when the open thread was opened, above its window and not seen whole since:
    /// what the "N unread above" hint counts. Those not loaded yet count too.
    var unreadAboveWindow: Int {
        guard let viewport, let opened = openedUnread, opened.conversation == viewport.conversation, opened.count > 0,
              let messages = threads[viewport.conversation]?.messages else { return 0 }
        return UnreadAbove.count(
            messages: messages.map { (id: $0.id, mine: $0.sender == user) }, divider: opened.divider, countedFrom: opened.countedFrom,
            unreadAtOpen: opened.count, firstInWindow: viewport.visibleIDs.first, seen: opened.seen)
    }

    /// The ids of the open thread's participants (what `@` completes to).
    public var threadParticipants: [String] {
        guard let viewport else { return [] }
        return directory[viewport.conversation]?.participants.map(\.id) ?? []
    }
}

/// Counts the unread messages above a thread's window, sans-IO.
enum UnreadAbove {
    /// Others' messages from `divider` (the first unread when the thread opened) up to the one before
    /// `firstInWindow` that are not in `seen`, plus those of the `unreadAtOpen` that are older than every loaded
    /// message (the divider then sits on the oldest loaded one). Nothing when the window is at or above the divider.
    static func count(
        messages: [(id: String, mine: Bool)], divider: String?, countedFrom: String?, unreadAtOpen: Int, firstInWindow: String?,
        seen: Set<String>
    ) -> Int {
        guard let divider, let start = messages.firstIndex(where: { $0.id == divider }),
              let first = firstInWindow, let end = messages.firstIndex(where: { $0.id == first }), end >= start else { return 0 }
        let above = messages[start..<end].filter { !$0.mine && !seen.contains($0.id) }.count
        // Unread ones not loaded: those the count at opening holds beyond the loaded ones it was counted back over.
        let last = countedFrom.flatMap { id in messages.lastIndex { $0.id == id } } ?? messages.count - 1
        let loaded = last >= start ? messages[start...last].filter { !$0.mine }.count : 0
        return above + max(0, unreadAtOpen - loaded)
    }
}
