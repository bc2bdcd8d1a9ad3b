import HeraldProtocol
import HeraldRules

extension ClientCore {
    /// The read-only model the presenters draw from.
    public func screenModel(now: Instant) -> ScreenModel {
        let rows = directory.ordered.map {
            ScreenModel.ConversationRow(
                id: $0.id, title: directory.title(of: $0.id, me: user), unread: unread.unread(in: $0.id),
                preview: $0.lastMessage.map(StateEncoder.preview) ?? "")
        }
        var lines: [ScreenModel.ThreadLine] = []
        if let viewport, let cache = threads[viewport.conversation] {
            let byId = Dictionary(cache.messages.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
            lines = viewport.visibleIDs.compactMap { id in
                byId[id].map { ScreenModel.ThreadLine(id: id, sender: $0.senderName, text: StateEncoder.preview($0)) }
            }
        }
        let remaining = toasts.visibleRemaining(now: now).map { Int(($0.value + 999) / 1000) }
        return ScreenModel(
            user: user, connected: connected, scene: scene, conversations: rows, badgeText: unread.badgeText,
            bellBadgeText: bell.badgeText, bellItems: bell.items, thread: lines, atBottom: viewport?.isAtBottom ?? true,
            newBelow: viewport?.newBelow ?? 0, toast: scene.isForeground ? toasts.visible : nil, toastSecondsLeft: remaining,
            pendingPushes: pushes.count)
    }
}
