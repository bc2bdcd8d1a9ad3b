import Logging
import HeraldProtocol
import HeraldRules
import HeraldStoreProtocol

/// A message's push (P2): T10 words from the shared toast rules, so a push reads like the toast would, and the deep
/// link to its conversation. The same for every recipient and every node.
enum PushPreview {
    static func info(for message: MessageRecord, senderName: String, in conversation: ConversationRecord) -> PushInfo {
        let preview = ToastText.messageToast(
            senderName: senderName, groupTitle: conversation.kind == .group ? conversation.title : nil, text: message.text,
            isImage: message.kind == .image)
        return PushInfo(
            conversation: message.conversation, message: message.id, sender: message.sender, preview: preview.body,
            title: preview.title, url: DeepLinks.conversation(message.conversation))
    }
}

/// The device-only events of the push outbox (P3, P5): the same JSON whichever node or path sends them.
enum PushEvents {
    /// `push`: a message's notification for a background device.
    static func push(_ push: PushInfo) -> [UInt8] {
        var event = EventFrame(event: .push)
        event.push = push
        return event.encodeBody()
    }

    /// `push.cleared`: the message was read, so the notification goes away.
    static func cleared(conversation: String, message: String) -> [UInt8] {
        var event = EventFrame(event: .pushCleared)
        event.conversationId = conversation
        event.messageId = message
        return event.encodeBody()
    }
}

extension SyncCore {
    /// Delivers a message's push whose grace period ended (P1-P4) to each recipient, or drops it for a recipient: when
    /// a device of theirs is viewing the conversation, when they read the message meanwhile, or when none of their
    /// devices is in the background. The `push` event reads the same for everyone, so it is encoded once.
    func deliver(_ pending: PendingPush, now: Int64, into deliveries: inout [SyncDelivery<Device>]) {
        if let cluster { return deliverAcrossNodes(pending, cluster: cluster, now: now, into: &deliveries) }
        // P3: only background devices get a push; with none on this node, no recipient can get one.
        guard presence.backgroundDevices > 0 else { return }
        let push = pending.push
        var payload: [UInt8]?
        for user in pending.users {
            guard !isViewing(user, conversation: push.conversation) else { continue }
            let targets = pushTargets(of: user)
            guard !targets.isEmpty else { continue }
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
                guard delivered else { continue }
            } catch {
                // Without its outbox row a push could never be withdrawn (P5): better not to send it.
                logger.debug("push not delivered: outbox write failed", metadata: ["user": "\(user)", "error": "\(error)"])
                continue
            }
            let body = payload ?? PushEvents.push(push)
            payload = body
            deliveries.append(SyncDelivery(payload: body, devices: targets))
        }
    }

    /// P3: the user's devices on this node that may get a push: live (synced) and in the background.
    func pushTargets(of user: String) -> [Device] {
        (devicesByUser[user] ?? []).filter { !$0.state.scene.foreground && $0.state.cursor != nil }.map(\.device)
    }
}
