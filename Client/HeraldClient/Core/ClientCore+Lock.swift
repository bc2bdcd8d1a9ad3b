import HeraldProtocol
import HeraldRules

/// The client as a locked phone: `lock` suspends the app (no connection, only the push endpoint listens), pushes its
/// provider delivers appear as `push` events and in `pushes`, withdrawals take them away (P5), and `unlock` (or tapping
/// a push, a cold start through D2/D3) brings it back.
extension ClientCore {
    mutating func lock() {
        guard !locked else { return answerError(code: "bad_state", message: "already locked") }
        guard configuration.pushSubscription != nil else {
            return answerError(code: "bad_state", message: "start with --push webpush to be reachable while locked")
        }
        // The scene goes to the background first, so the server hears it before the connection goes (P3).
        enterBackground()
        locked = true
        answerOK()
    }

    mutating func unlock() {
        guard locked else { return answerError(code: "bad_state", message: "not locked") }
        locked = false
        enterForeground(to: nil)
        answerOK(AnswerDetails(scene: scene.name))
    }

    /// `push tap` on a push the provider delivered while locked: the app starts from its notification (cold start,
    /// D2/D3): unlocked into the list, then the link is followed once the conversations are known.
    mutating func tapWhileLocked(_ push: PushInfo) {
        locked = false
        scene = .background
        enterForeground(to: .list)
        // An opaque push (`--push-preview none`) names no conversation: once connected, the app asks the server what
        // its ref was about, then follows that message's link like any other (D2).
        if push.conversation.isEmpty, push.url == DeepLink.messages.url, !push.message.isEmpty {
            return request(.pushResolve(reference: push.message), purpose: .pushResolve)
        }
        follow(url: push.url, answers: true)
    }

    /// A push the device's push endpoint received and decrypted: the JSON the server's push payload carries.
    public mutating func receiveProviderPush(_ payload: JSONValue, now: Instant) {
        self.now = now
        guard case .string(let type)? = payload["type"] else { return log("push without a type ignored") }
        func text(_ key: String) -> String? {
            if case .string(let value)? = payload[key] { return value }
            return nil
        }
        let badge: Int64? = if case .int(let number)? = payload["badge"] { number } else { nil }
        switch type {
        case "message" where text("ref") != nil && text("message") == nil:
            // `--push-preview none`: no ids, only the opaque ref (resolved with push.resolve once connected); tapping
            // it opens the list (D1 `herald://messages`), where the new message is.
            let reference = text("ref") ?? ""
            let push = PushInfo(
                conversation: "", message: reference, sender: "", preview: text("body") ?? "", title: text("title") ?? "", url: DeepLink.messages.url)
            pushes.append(push)
            emit(.push(.webPushOpaque(push, reference: reference, badge: badge)))
        case "message":
            guard let conversation = text("conversation"), let message = text("message") else { return log("message push without ids ignored") }
            let push = PushInfo(
                conversation: conversation, message: message, sender: text("sender") ?? "", preview: text("body") ?? "", title: text("title") ?? "",
                url: text("url") ?? DeepLink.conversation(conversation).url)
            pushes.append(push)
            emit(.push(.webPushMessage(push, badge: badge)))
        case "bell":
            // With `--push-preview none` the notification id comes as the push's ref.
            guard let notification = text("notification") ?? text("ref") else { return log("bell push without a notification ignored") }
            let push = PushInfo(
                conversation: "", message: notification, sender: text("sender") ?? "", preview: text("body") ?? "", title: text("title") ?? "",
                url: text("url") ?? DeepLink.notifications.url)
            pushes.append(push)
            emit(.push(.webPushBell(push, badge: badge)))
        case "withdraw":
            // A bell push keeps its notification id where a message push keeps the message's.
            // An opaque push (`--push-preview none`) is withdrawn by the same ref it came with.
            guard let id = text("message") ?? text("notification") ?? text("ref") else { return log("withdrawal without a message or notification ignored") }
            withdrawPushes { $0.message == id }
        default:
            log("push of unknown type '\(type.prefix(32))' ignored")
        }
    }
}
