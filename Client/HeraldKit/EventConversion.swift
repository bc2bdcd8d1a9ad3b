import HeraldClient
import HeraldProtocol
import HeraldRules

/// Turns the core's typed events and answers into the library's public types. Nothing is encoded or decoded on the
/// way: the core's values are read field by field.
enum EventConversion {
    /// The public event a core event stands for; nil for the ones an app has no use for (`history`, `haptic`,
    /// `conversation`, …) and for `connected`/`disconnected`, which the session turns into connection states.
    static func event(_ event: ClientEvent, me: String) -> HeraldEvent? {
        switch event {
        case .message(let message, let sequence):
            return .message(Self.message(message, sequence: sequence, me: me))
        case .edited(let message, _):
            return .edited(conversation: message.conversation, message: message.id, text: message.text ?? "")
        case .unsent(let message, _, _):
            return .unsent(conversation: message.conversation, message: message.id)
        case .read(let conversation, let messages, let counts, _):
            return .read(conversation: conversation, messages: messages, unread: counts.unread, badge: counts.badge)
        case .receipt(let conversation?, let message?, let reader?, _):
            return .receipt(conversation: conversation, message: message, reader: reader)
        case .typing(let conversation, let users):
            return .typing(conversation: conversation, users: users)
        case .presence(let user, let status, let lastSeen):
            return .presence(user: user, status: status, lastSeen: lastSeen)
        case .bell(_, _, let unread, let badgeText, let pulse):
            return .bell(unread: unread, badgeText: badgeText, pulse: pulse)
        case .toastShown(let toast):
            return .toastShown(presentation(toast))
        case .toastUpdated(let toast):
            return .toastUpdated(presentation(toast))
        case .toastDismissed(let id, let reason):
            return .toastDismissed(id: id, reason: reason)
        case .route(let url, let scene, let conversation, let error):
            return .route(url: url, scene: scene, conversation: conversation, error: error)
        case .sendFailed(let clientMessageId, let code, let message):
            return .sendFailed(clientMessageId: clientMessageId, code: code, message: message)
        case .settings(let change):
            return .settingsChanged(conversation: change.conversation)
        case .left(let conversation, let user):
            return .left(conversation: conversation, user: user)
        case .pushRegistered(let device, _):
            // The server names the device it registered; one without a name cannot register (the request is refused).
            return device.map(HeraldEvent.pushRegistered)
        case .pushRegistrationFailed(let code, let message):
            return .pushRegistrationRefused(code: code, message: message)
        case .reaction(let conversation, let message, let user, let emoji, _):
            return .reaction(conversation: conversation, message: message, user: user, emoji: emoji)
        case .connected, .disconnected, .history, .conversation, .receipt, .push, .pushCleared, .toastAction, .haptic:
            return nil
        }
    }

    /// A message as the library shows it.
    static func message(_ message: MessageInfo, sequence: Int64?, me: String) -> Message {
        Message(
            conversation: message.conversation, id: message.id, sender: message.sender, senderName: message.senderName,
            text: message.text, imageURL: message.imageURL, sequence: sequence,
            clientMessageId: message.sender == me ? message.clientMessageId : nil, mentionsMe: message.mentions?.contains(me) ?? false,
            isSystem: message.kind == .system)
    }

    static func presentation(_ toast: Toast) -> ToastPresentation {
        ToastPresentation(
            id: toast.id, kind: toast.kind, title: toast.title, text: toast.text, accessibilityLabel: toast.accessibilityLabel,
            conversation: toast.conversation, count: toast.count, priority: toast.priority, url: toast.url, mentionsMe: toast.isMention)
    }

    /// The conversation list of a `state` answer, in list order.
    static func conversations(_ snapshot: ClientSnapshot) -> [ConversationSummary] {
        snapshot.conversations.map { item in
            ConversationSummary(id: item.id, title: item.title, unread: item.unread, lastPreview: item.lastPreview, muted: item.muted)
        }
    }
}
