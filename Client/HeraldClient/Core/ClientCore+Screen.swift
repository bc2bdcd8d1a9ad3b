import HeraldProtocol
import HeraldRules

extension ClientCore {
    /// The read-only model the presenters draw from, its text drawable on a terminal (TerminalText).
    public func screenModel(now: Instant) -> ScreenModel {
        let rows = directory.ordered.map {
            ScreenModel.ConversationRow(
                id: $0.id, title: directory.title(of: $0.id, me: user), unread: unread.unread(in: $0.id),
                preview: $0.lastMessage?.listPreview ?? "", lastActivity: $0.lastMessage?.createdAt,
                muted: alerts.isMuted($0.id), markedUnread: unread.markedUnread.contains($0.id))
        }
        var lines: [ScreenModel.ThreadLine] = []
        var title = ""
        var members: [String] = []
        var pending: [ScreenModel.PendingLine] = []
        var window: (skip: Int, rows: Int?) = (0, nil)
        if let viewport {
            if screenGeometry != nil { window = (viewport.skippedRows, viewport.size) }
            let visible = Set(viewport.visibleIDs)
            lines = threadLines(viewport.conversation).filter { visible.contains($0.id) }
            title = directory.title(of: viewport.conversation, me: user)
            members = directory[viewport.conversation]?.participants.map { $0.id == user ? "you" : $0.name } ?? []
            pending = pendingSends(in: viewport.conversation)
        }
        let remaining = toasts.visibleRemaining(now: now).map { Int(($0.value + 999) / 1000) }
        var model = ScreenModel(
            user: user, connected: connected, scene: scene, conversations: rows, badgeText: unread.badgeText,
            bellBadgeText: bell.badgeText, bellItems: bell.items, thread: lines, atBottom: viewport?.isAtBottom ?? true,
            newBelow: viewport?.newBelow ?? 0, toast: scene.isForeground ? toasts.visible : nil, toastSecondsLeft: remaining,
            pendingPushes: pushes.count, threadTitle: title, threadMembers: members, pending: pending)
        model.threadSkipRows = window.skip
        model.threadRows = window.rows
        model.unreadAbove = unreadAboveWindow
        addTypingAndPresence(to: &model)
        // Others' text as drawable text, before a presenter measures or wraps it.
        return model.drawable
    }

    /// User ids this device knows (everyone in its conversations and the last `users` answer), for completion.
    public var knownPeople: [String] {
        Array(Set(directory.ordered.flatMap { $0.participants.map(\.id) } + knownUsers.map(\.id))).sorted()
    }

    /// The newest message from someone else in the open thread (what `/react` reacts to by default).
    public var newestFromOthersInThread: String? {
        guard let viewport else { return nil }
        let visible = Set(viewport.visibleIDs)
        return threads[viewport.conversation]?.messages.last { $0.sender != user && $0.kind != .system && visible.contains($0.id) }?.id
    }

    /// This user's newest message in the open thread that was not unsent (what `/edit` and `/unsend` change); a system
    /// line about a change they made is not theirs to change (G5).
    public var newestMineInThread: String? {
        guard let viewport else { return nil }
        return threads[viewport.conversation]?.messages.last { $0.sender == user && $0.unsent != true && $0.kind != .system }?.id
    }

    /// Sends to any conversation the server has not acknowledged (in flight or queued while offline): quitting
    /// now would lose them, since the queue lives only in this process.
    public var unsentCount: Int {
        (inFlight.values.map(\.0) + deferred.map(\.0) + pacedSends.map(\.0)).filter { if case .send = $0 { true } else { false } }.count
    }

    /// A page for PageUp/PageDown: on a screen, the thread area's rows less one kept for context (so a message
    /// taller than the area is read piece by piece, U2); without one, the messages shown less one.
    public var viewportPage: Int {
        guard let viewport else { return 1 }
        return max(1, (screenGeometry == nil ? viewport.visibleIDs.count : viewport.size) - 1)
    }
}
