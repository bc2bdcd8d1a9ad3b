/// M1 and M2 on the device's toasts: a message that changes after its toast was raised changes that toast, and only it.
extension ToastManager {
    /// M1: the toast showing `request.messageId` takes the request's title and words. Its timer is not restarted (an
    /// edit never alerts again), its count and queue place stay. No toast shows the message: nothing happens.
    mutating func revise(_ request: ToastRequest) -> [ToastEvent] {
        guard let message = request.messageId else { return [] }
        if var current = visible, current.messageId == message {
            current.takeWords(of: request)
            replaceVisible(with: current)
            return [.updated(current)]
        }
        guard var toast = queuedToasts.first(where: { $0.messageId == message }) else { return [] }
        toast.takeWords(of: request)
        replaceQueued(with: toast)
        return [.updated(toast)]
    }

    /// M2: the toast showing `message` is removed, visible or queued; the next one follows under T3 as after any
    /// dismissal.
    mutating func withdraw(message: String, now: Instant) -> [ToastEvent] {
        if let current = visible, current.messageId == message {
            return dismissVisible(.withdrawn, now: now)
        }
        guard let toast = queuedToasts.first(where: { $0.messageId == message }) else { return [] }
        removeQueued(id: toast.id)
        return [.dismissed(id: toast.id, reason: .withdrawn)]
    }
}

extension Toast {
    /// The words of an edited message's toast; everything else (id, count, duration, priority) stays.
    fileprivate mutating func takeWords(of request: ToastRequest) {
        title = request.title
        text = request.text
        accessibilityLabel = request.accessibilityLabel
    }
}
