/// M1 and M2 on the device's toasts: a message that changes after its toast was raised changes that toast, and only
/// it. A message toast may stand for several messages of its conversation (T5): it shows the newest one's words, and
/// remembers the others' (``Toast/folded``).
extension ToastManager {
    /// M1: an edit of `request.messageId`, one of the messages a visible or queued toast stands for. Its words are
    /// kept; when it is the message the toast shows, the toast takes the new title and words in place (`updated`). The
    /// timer is not restarted (an edit never alerts again), count and queue place stay. An edit not newer than the one
    /// the toast knows (a retried or replayed one arriving late) changes nothing; so does one of a message no toast
    /// stands for.
    mutating func revise(_ request: ToastRequest) -> [ToastEvent] {
        guard let message = request.messageId else { return [] }
        if var current = visible, current.stands(for: message) {
            guard current.revise(message, with: request) else { return [] }
            replaceVisible(with: current)
            return current.messageId == message ? [.updated(current)] : []
        }
        guard var toast = queuedToasts.first(where: { $0.stands(for: message) }), toast.revise(message, with: request) else { return [] }
        replaceQueued(with: toast)
        return toast.messageId == message ? [.updated(toast)] : []
    }

    /// M2: `message` was unsent. A toast standing for it and others counts one fewer; when it showed that message it
    /// falls back to the newest one left (`updated`, timer running on). A toast left with nothing to show is removed,
    /// visible or queued; the next one follows under T3 as after any dismissal.
    mutating func withdraw(message: String, now: Instant) -> [ToastEvent] {
        if var current = visible, current.stands(for: message) {
            guard current.unfold(message) else { return dismissVisible(.withdrawn, now: now) }
            replaceVisible(with: current)
            return [.updated(current)]
        }
        guard var toast = queuedToasts.first(where: { $0.stands(for: message) }) else { return [] }
        guard toast.unfold(message) else {
            removeQueued(id: toast.id)
            return [.dismissed(id: toast.id, reason: .withdrawn)]
        }
        replaceQueued(with: toast)
        return [.updated(toast)]
    }
}

extension Toast {
    /// Whether the toast stands for `message` (shows it, or folded it in).
    func stands(for message: String) -> Bool {
        messageId == message || folded.contains { $0.messageId == message }
    }

    /// M1: takes an edit of `message`; false when it is not newer than the words the toast has for it.
    fileprivate mutating func revise(_ message: String, with request: ToastRequest) -> Bool {
        if !folded.contains(where: { $0.messageId == message }), messageId == message {
            folded.append(FoldedMessage(messageId: message, title: title, text: text, accessibilityLabel: accessibilityLabel, editCount: nil))
        }
        guard let index = folded.firstIndex(where: { $0.messageId == message }),
            MessageRevisionRules.order(ofEdit: request.editCount, shown: folded[index].editCount) == .newer
        else { return false }
        folded[index] = FoldedMessage(message, request)
        if messageId == message { show(folded[index]) }
        return true
    }

    /// M2: `message` no longer counts. False when the toast showed it and no earlier message is left to show.
    fileprivate mutating func unfold(_ message: String) -> Bool {
        folded.removeAll { $0.messageId == message }
        if messageId == message {
            guard let previous = folded.last else { return false }
            show(previous)
        }
        count = Swift.max(1, count - 1)
        return true
    }

    /// Shows `entry`'s words; everything else (id, count, duration, priority) stays.
    private mutating func show(_ entry: FoldedMessage) {
        messageId = entry.messageId
        title = entry.title
        text = entry.text
        accessibilityLabel = entry.accessibilityLabel
    }
}
