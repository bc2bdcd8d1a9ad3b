import Logging
import HeraldProtocol
import HeraldRules
import HeraldStore

/// T10 words of a push (P2), from the shared toast rules so a push reads like the toast would.
enum PushPreview {
    static func make(senderName: String, groupTitle: String?, message: MessageRecord) -> (title: String, body: String) {
        let preview = ToastText.messageToast(senderName: senderName, groupTitle: groupTitle, text: message.text, isImage: message.kind == .image)
        return (preview.title, preview.body)
    }
}

extension SyncCore {
    /// Delivers a push whose grace period ended (P1-P4), or drops it: when a device of the user is
    /// viewing the conversation, when the message was read meanwhile, or when no device is in the background.
    func deliver(_ pending: PendingPush, now: Int64) -> SyncDelivery<Device>? {
        let user = pending.user
        let push = pending.push
        let mine = devicesByUser[user] ?? []
        guard !isViewing(user, conversation: push.conversation) else { return nil }
        // P3: only background devices that are live get a push.
        let targets = mine.filter { device in
            guard let state = devices[device] else { return false }
            return !state.scene.foreground && state.cursor != nil
        }
        guard !targets.isEmpty else { return nil }
        do {
            let delivered = try store.transaction { () throws -> Bool in
                guard try !store.isRead(user: user, message: push.message) else { return false }  // P4
                for device in targets {
                    guard let name = devices[device]?.name else { continue }
                    _ = try store.enqueuePush(
                        user: user, device: name, conversation: push.conversation, message: push.message, sender: push.sender,
                        preview: push.preview, url: push.url, now: now)
                }
                return true
            }
            guard delivered else { return nil }
        } catch {
            // Without its outbox row a push could never be withdrawn (P5): better not to send it.
            logger.debug("push not delivered: outbox write failed", metadata: ["user": "\(user)", "error": "\(error)"])
            return nil
        }
        var event = EventFrame(event: .push)
        event.push = push
        return SyncDelivery(payload: event.encodeBody(), devices: targets)
    }
}
