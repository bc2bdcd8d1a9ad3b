import HeraldProtocol
import HeraldRules

/// M1 and M2 on this device: a message changed after it was sent. The change reaches every place that shows the
/// message (thread, list preview, toast, push) without ever alerting again.
extension ClientCore {
    /// The answer to `edit` or `unsend`: the sender's own device applies it at once (the stream event follows and
    /// changes nothing more).
    mutating func revisionAnswered(_ response: ResponseFrame) {
        guard let message = response.message else { return answerOK() }
        if !isOlderEdit(message) { applyRevision(message, listPreview: nil) }
        answerOK(AnswerDetails(conversation: message.conversation, message: message.id))
    }

    /// A `message.edited` or `message.unsent` stream event. An edit older than the one this device shows (M1: a
    /// replay after fresher history, a late answer) changes nothing and prints nothing.
    mutating func messageRevised(_ frame: EventFrame) {
        guard let message = frame.message else { return }
        if frame.event == .messageEdited, isOlderEdit(message) {
            return log("edit \(message.editCount ?? 0) of \(message.id) is older than the one shown: not applied")
        }
        let conversation = message.conversation
        applyRevision(message, listPreview: frame.event == .messageUnsent ? .some(frame.lastMessage) : nil)
        if frame.event == .messageEdited {
            // T5 without restarting the timer: the toast showing it reads the new text; nothing new is raised.
            let request = ToastRequest.message(
                conversation: conversation, senderName: message.senderName, groupTitle: directory.groupTitle(of: conversation),
                text: message.text, isImage: message.kind == .image, messageId: message.id, editCount: message.editCount)
            applyToastEvents(toasts.handle(.revise(request), now: now))
            emit(.edited(message, sequence: frame.seq))
        } else {
            var counts: UnreadCounts?
            applyToastEvents(toasts.handle(.withdraw(message: message.id), now: now))
            // U7: a message that was unread here leaves the count with this event's seq.
            if let seq = frame.seq, let count = frame.unread?[conversation] {
                applyUnread(unread.handle(.serverUpdate(UnreadUpdate(conversation: conversation, unread: count, sequence: seq))))
                counts = unreadCounts(in: conversation)
            }
            // P5: its push, if this device got one, is withdrawn.
            withdrawPushes { $0.conversation == conversation && $0.message == message.id }
            emit(.unsent(message, counts: counts, sequence: frame.seq))
        }
    }

    /// Puts the changed message into the thread cache and, when the list shows it, the list preview (an unsent one
    /// gives way to `listPreview`, the message before it, when the server named it).
    mutating func applyRevision(_ message: MessageInfo, listPreview: MessageInfo??) {
        let conversation = message.conversation
        if var cache = threads[conversation], let index = cache.messages.firstIndex(where: { $0.id == message.id }) {
            cache.messages[index] = message
            threads[conversation] = cache
        }
        let fallback = listPreview ?? threads[conversation]?.messages.last { $0.unsent != true && $0.id != message.id }
        directory.reviseLastMessage(message, fallback: fallback)
        if viewport?.conversation == conversation { relayoutThread() }
    }

    /// M1: whether `message`, an edit, is older than what this device shows of it (thread or list preview), or the
    /// message is shown unsent already: applying it would bring back older words.
    func isOlderEdit(_ message: MessageInfo) -> Bool {
        guard message.unsent != true else { return false }
        let shown = threads[message.conversation]?.messages.first { $0.id == message.id }
            ?? directory[message.conversation]?.lastMessage.flatMap { $0.id == message.id ? $0 : nil }
        guard let shown else { return false }
        if shown.unsent == true { return true }
        return MessageRevisionRules.order(ofEdit: message.editCount, shown: shown.editCount ?? 0) == .older
    }
}
