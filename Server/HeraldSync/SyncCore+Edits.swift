import HeraldProtocol
import HeraldRules
import HeraldStoreProtocol

/// M1 and M2: a message changed after it was sent. Both travel as stream events with a seq to every participant, so a
/// device that was away gets them by resume, in order, once (M3, R3); a retry changes nothing and is answered alike.
extension SyncCore {
    /// M1: the sender replaces a text message's text. Never alerts and never changes unread state; a push still in its
    /// grace (P4) or still queued for a device without a connection goes out with the new text, one already delivered
    /// is not repeated.
    func editMessage(_ id: String, text: String, user: String, now: Int64, step: inout SyncStep<Device>) throws -> MessageInfo {
        let message = try revisableMessage(id, user: user)
        let limits = configuration.messageRevisions
        switch MessageRevisionRules.edit(
            editor: user, sender: message.sender, isText: message.kind == .text, isUnsent: message.unsentAt != nil,
            currentText: message.text, text: text, editCount: message.editCount, sentAt: message.createdAt, now: now, limits: limits)
        {
        case .refuse(let refusal): throw Self.revisionError(refusal, verb: "edited")
        case .unchanged: return message.info(senderName: try name(of: message.sender))
        case .apply: break
        }
        // The store checks the count and the unsent flag again in its write: another node's edit may have come first.
        guard let edited = try store.editMessage(id: id, text: text, maxEdits: limits.maxEdits, now: now) else {
            let current = try revisableMessage(id, user: user)
            if current.text == text { return current.info(senderName: try name(of: current.sender)) }
            throw Self.revisionError(current.unsentAt != nil ? .unsent : .tooManyEdits(limit: limits.maxEdits), verb: "edited")
        }
        // Charged once the edit is written; a refusal rolls it back with this request.
        try chargeStorage(user, StorageQuota.cost(text: text, imageURL: nil), now: now)
        let info = edited.info(senderName: try name(of: edited.sender))
        guard let conversation = try store.conversation(id: edited.conversation) else { return info }
        var event = EventFrame(event: .messageEdited)
        event.message = info
        try appendEvent(event.encodeBody(), to: conversation.participants, of: conversation.id, now: now, step: &step)
        let push = PushPreview.info(for: edited, senderName: info.senderName, in: conversation)
        try store.reviseQueuedPushes(message: edited.id, body: pushContent(title: push.title, body: push.preview).body)
        return info
    }

    /// M2: the sender takes a message back. It becomes a placeholder everywhere; whoever had not read it loses it from
    /// unread(c) and the badge at once (their event carries the new counts, U7), and its pushes are withdrawn (P5).
    func unsendMessage(_ id: String, user: String, now: Int64, into response: inout ResponseFrame, step: inout SyncStep<Device>) throws {
        let message = try revisableMessage(id, user: user)
        // G5: a system line is the server's record of a change, not its actor's message.
        guard message.kind != .system else { throw ErrorInfo(.conflict, "a line about the group cannot be unsent") }
        switch MessageRevisionRules.unsend(
            requester: user, sender: message.sender, isUnsent: message.unsentAt != nil, sentAt: message.createdAt, now: now,
            limits: configuration.messageRevisions)
        {
        case .refuse(let refusal): throw Self.revisionError(refusal, verb: "unsent")
        case .unchanged:
            response.message = message.info(senderName: try name(of: message.sender))
            return
        case .apply: break
        }
        guard let (unsent, unreadFor) = try store.unsendMessage(id: id, now: now) else {
            // Another node unsent it first: the same answer as a retry.
            let current = try revisableMessage(id, user: user)
            response.message = current.info(senderName: try name(of: current.sender))
            return
        }
        let info = unsent.info(senderName: try name(of: unsent.sender))
        response.message = info
        guard let conversation = try store.conversation(id: unsent.conversation) else { return }
        var event = EventFrame(event: .messageUnsent)
        event.message = info
        event.lastMessage = try lastShownMessage(in: conversation.id).map { try $0.info(senderName: name(of: $0.sender)) }
        let counted = Set(unreadFor)
        let others = conversation.participants.filter { !counted.contains($0) }
        if !others.isEmpty { try appendEvent(event.encodeBody(), to: others, now: now, step: &step) }
        for recipient in conversation.participants where counted.contains(recipient) {
            // Their own counts, like a `read` event: the badge drops with this seq (U7).
            let counts = try store.unreadCounts(user: recipient)
            var own = event
            own.unread = [conversation.id: counts[conversation.id] ?? 0]
            own.badge = counts.values.reduce(0, +)
            try appendEvent(own.encodeBody(), to: [recipient], now: now, step: &step)
            try withdrawDeliveredPushes(message: unsent.id, conversation: conversation.id, user: recipient, now: now, step: &step)
        }
    }

    /// P5 for one user: the pushes their devices got for `message` are withdrawn, on this node's connected devices as
    /// `push.cleared`, on other nodes' through the store's signal, and for devices without a connection through the
    /// queue (cancelled when not out yet).
    func withdrawDeliveredPushes(message: String, conversation: String, user: String, now: Int64, step: inout SyncStep<Device>) throws {
        let withdrawn = try store.withdrawPushes(message: message, user: user, now: now)
        guard !withdrawn.isEmpty else { return }
        let deviceNames = Set(withdrawn.map(\.device))
        let targets = (devicesByUser[user] ?? []).filter { deviceNames.contains($0.state.name) }.map(\.device)
        if !targets.isEmpty {
            step.effects.append(.deviceEvent(targets, PushEvents.cleared(conversation: conversation, message: message)))
        }
        try withdrawQueuedPushes(withdrawn, user: user, conversation: conversation, message: message, now: now, step: &step)
    }

    /// A push whose grace ended, as it reads now: nil when its message was unsent meanwhile (M2), with the new text when
    /// it was edited (M1).
    func currentPush(_ push: PushInfo) throws -> PushInfo? {
        guard let record = try store.message(id: push.message), record.unsentAt == nil else { return nil }
        guard record.editCount > 0, let conversation = try store.conversation(id: record.conversation) else { return push }
        return PushPreview.info(for: record, senderName: try name(of: record.sender), in: conversation)
    }

    /// The conversation's list preview: its newest message that was not unsent (M2).
    func lastShownMessage(in conversation: String) throws -> MessageRecord? {
        try store.lastShownMessage(conversation: conversation)
    }

    /// The message `id` if `user` may see it; R5: one in someone else's conversation looks like one that does not exist.
    private func revisableMessage(_ id: String, user: String) throws -> MessageRecord {
        guard let message = try store.message(id: id), try store.isParticipant(user: user, conversation: message.conversation) else {
            throw ErrorInfo(.notFound, "no such message")
        }
        return message
    }

    static func revisionError(_ refusal: MessageRevisionRules.Refusal, verb: String) -> ErrorInfo {
        switch refusal {
        case .notSender: ErrorInfo(.forbidden, "only its sender can change a message")
        // Not the request's shape nor the user's rights but the message's kind or state: a conflict (HTTP 409). An
        // unsent message still exists (unsending it again answers with it), so it is not `not_found` either.
        case .notText: ErrorInfo(.conflict, "this is an image message: only a text message can be edited")
        case .unsent: ErrorInfo(.conflict, "the message was unsent: it can no longer be edited")
        case .tooLate(let window): ErrorInfo(.tooLate, "a message can be \(verb) only within \(window / 1000) seconds of sending it")
        case .tooManyEdits(let limit): ErrorInfo(.tooManyEdits, "a message can be edited at most \(limit) times")
        }
    }
}
