import HeraldProtocol
import HeraldRules

/// M1 and M2 on this device: a message changed after it was sent. The change reaches every place that shows the
/// message (thread, list preview, toast, push) without ever alerting again.
extension ClientCore {
    /// The answer to `edit` or `unsend`: the sender's own device applies it at once (the stream event follows and
    /// changes nothing more).
    mutating func revisionAnswered(_ response: ResponseFrame) {
        guard let message = response.message else { return answerOK() }
        applyRevision(message, listPreview: nil)
        answerOK([JSONField("conversation", .string(message.conversation)), JSONField("message", .string(message.id))])
    }

    /// A `message.edited` or `message.unsent` stream event.
    mutating func messageRevised(_ frame: EventFrame) {
        guard let message = frame.message else { return }
        let conversation = message.conversation
        applyRevision(message, listPreview: frame.event == .messageUnsent ? .some(frame.lastMessage) : nil)
        var fields: [JSONField] = [
            JSONField("type", "event"), JSONField("event", .string(frame.event.rawValue)), JSONField("conversation", .string(conversation)),
            JSONField("message", .string(message.id)),
        ]
        if frame.event == .messageEdited {
            // T5 without restarting the timer: the toast showing it reads the new text; nothing new is raised.
            let request = ToastRequest.message(
                conversation: conversation, senderName: message.senderName, groupTitle: directory.groupTitle(of: conversation),
                text: message.text, isImage: message.kind == .image, messageId: message.id)
            applyToastEvents(toasts.handle(.revise(request), now: now))
            fields.append(JSONField("text", .optional(message.text)))
        } else {
            applyToastEvents(toasts.handle(.withdraw(message: message.id), now: now))
            // U7: a message that was unread here leaves the count with this event's seq.
            if let seq = frame.seq, let count = frame.unread?[conversation] {
                applyUnread(unread.handle(.serverUpdate(UnreadUpdate(conversation: conversation, unread: count, sequence: seq))))
                fields.append(JSONField("unread", .number(unread.unread(in: conversation))))
                fields.append(JSONField("badge", .number(unread.badge)))
            }
            // P5: its push, if this device got one, is withdrawn.
            withdrawPushes { $0.conversation == conversation && $0.message == message.id }
        }
        if let seq = frame.seq { fields.append(JSONField("seq", .int(seq))) }
        emit(.object(fields))
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

    /// `edited`/`unsent` of a message as script output fields (absent when neither).
    static func revisionFields(of message: MessageInfo) -> [JSONField] {
        var fields: [JSONField] = []
        if message.edited == true { fields.append(JSONField("edited", .bool(true))) }
        if message.unsent == true { fields.append(JSONField("unsent", .bool(true))) }
        return fields
    }
}
