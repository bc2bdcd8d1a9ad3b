import HeraldProtocol
import HeraldRules

/// Reads the core's output values into typed events. The core's values are its internal form (the script mode prints
/// them as lines); no JSON leaves this module.
enum EventDecoding {
    /// The typed event a core `event` value stands for; nil for the ones an app has no use for (`history`, `haptic`,
    /// `conversation`, …) and for `connected`/`disconnected`, which the session turns into connection states.
    static func event(_ value: JSONValue) -> HeraldEvent? {
        switch value["event"]?.string {
        case "message":
            guard let conversation = value["conversation"]?.string, let id = value["message"]?.string else { return nil }
            return .message(Message(
                conversation: conversation, id: id, sender: value["sender"]?.string ?? "", senderName: value["senderName"]?.string ?? "",
                text: value["text"]?.string, imageURL: value["imageURL"]?.string, sequence: value["seq"]?.int,
                clientMessageId: value["clientMessageId"]?.string, mentionsMe: value["mentioned"] == .bool(true)))
        case "message.edited":
            guard let conversation = value["conversation"]?.string, let id = value["message"]?.string else { return nil }
            return .edited(conversation: conversation, message: id, text: value["text"]?.string ?? "")
        case "message.unsent":
            guard let conversation = value["conversation"]?.string, let id = value["message"]?.string else { return nil }
            return .unsent(conversation: conversation, message: id)
        case "read":
            guard let conversation = value["conversation"]?.string else { return nil }
            return .read(conversation: conversation, messages: value["messages"]?.strings ?? [], unread: value["unread"]?.count ?? 0,
                         badge: value["badge"]?.count ?? 0)
        case "receipt":
            guard let conversation = value["conversation"]?.string, let id = value["message"]?.string, let reader = value["reader"]?.string
            else { return nil }
            return .receipt(conversation: conversation, message: id, reader: reader)
        case "typing":
            guard let conversation = value["conversation"]?.string else { return nil }
            return .typing(conversation: conversation, users: value["users"]?.strings ?? [])
        case "presence":
            guard let user = value["user"]?.string, let status = value["status"]?.string.flatMap(PresenceStatus.init(rawValue:)) else { return nil }
            return .presence(user: user, status: status, lastSeen: value["lastSeen"]?.int)
        case "bell":
            return .bell(unread: value["unread"]?.count ?? 0, badgeText: value["badgeText"]?.string ?? "", pulse: value["pulse"] == .bool(true))
        case "toast.shown":
            return toast(value).map(HeraldEvent.toastShown)
        case "toast.updated":
            return toast(value).map(HeraldEvent.toastUpdated)
        case "toast.dismissed":
            return .toastDismissed(id: value["id"]?.string ?? "", reason: value["reason"]?.string ?? "")
        case "route":
            return .route(url: value["url"]?.string ?? "", scene: value["scene"]?.string ?? "", conversation: value["conversation"]?.string,
                          error: value["error"]?.string)
        case "send.failed":
            return .sendFailed(clientMessageId: value["clientMessageId"]?.string ?? "", code: value["code"]?.string ?? "",
                               message: value["message"]?.string ?? "")
        case "settings":
            return .settingsChanged(conversation: value["conversation"]?.string)
        case "left":
            guard let conversation = value["conversation"]?.string, let user = value["user"]?.string else { return nil }
            return .left(conversation: conversation, user: user)
        case "push.registered":
            return .pushRegistration(device: value["device"]?.string, error: nil)
        case "push.registration.failed":
            return .pushRegistration(device: nil, error: value["code"]?.string ?? "refused")
        default:
            return nil
        }
    }

    static func toast(_ value: JSONValue) -> ToastPresentation? {
        guard let id = value["id"]?.string else { return nil }
        return ToastPresentation(
            id: id, kind: value["kind"]?.string.flatMap(ToastKind.init(name:)) ?? .info, title: value["title"]?.string ?? "",
            text: value["text"]?.string ?? "", accessibilityLabel: value["accessibilityLabel"]?.string ?? "",
            conversation: value["conversation"]?.string, count: value["count"]?.count ?? 1,
            priority: value["priority"]?.string.flatMap(ToastPriority.init(name:)) ?? .normal, url: value["url"]?.string,
            mentionsMe: value["mentioned"] == .bool(true))
    }

    /// The conversations of a `state` value, in list order.
    static func conversations(_ state: JSONValue) -> [ConversationSummary] {
        guard case .array(let items)? = state["conversations"] else { return [] }
        return items.compactMap { item in
            guard let id = item["id"]?.string else { return nil }
            return ConversationSummary(id: id, title: item["title"]?.string ?? id, unread: item["unread"]?.count ?? 0,
                                       lastPreview: item["lastPreview"]?.string, muted: item["muted"] == .bool(true))
        }
    }
}

extension JSONValue {
    var string: String? { if case .string(let text) = self { text } else { nil } }
    var int: Int64? { if case .int(let number) = self { number } else { nil } }
    /// A count: an integer that fits an Int.
    var count: Int? { int.flatMap { Int(exactly: $0) } }
    var strings: [String]? { if case .array(let items) = self { items.compactMap(\.string) } else { nil } }
}
