import HeraldProtocol
import HeraldStoreProtocol
import Logging

/// E1: typing indicators. Ephemeral: never stored, never replayed, no seq; the other participants' connected devices
/// hear a start when a user begins typing in a conversation and a stop when they end (their stop, a message from them,
/// 6 s without a refresh, their device leaving the thread or disconnecting). Refreshes send nothing.
extension SyncCore {
    /// A `typing.start` or `typing.stop` of a device. R5: only a participant; refused beyond the device's budget, and
    /// then nothing changes.
    func reportTyping(_ starts: Bool, in conversation: String, device: Device, state: DeviceState, now: Int64) throws {
        try requireParticipant(state.user, conversation)
        if let waitMs = ephemeral.typingBudget.take(ObjectIdentifier(state), nowMs: now) {
            throw ErrorInfo(.rateLimited, "too many typing reports; retry in \(waitMs) ms")
        }
        let key = TypingKey(conversation: conversation, user: state.user)
        let id = ObjectIdentifier(state)
        guard starts else {
            removeTyping(id, from: key)
            return
        }
        let deadline = now + ephemeral.typingExpiryMilliseconds
        if ephemeral.typing[key] != nil {
            ephemeral.typing[key]?.devices[id] = deadline
        } else {
            let participants = try store.conversation(id: conversation)?.participants ?? []
            ephemeral.typing[key] = TypingEntry(devices: [id: deadline], recipients: participants.filter { $0 != state.user })
            announceTyping(key, typing: true)
        }
        ephemeral.typingByDevice[id, default: []].insert(key)
        ephemeral.typingDeadline = min(ephemeral.typingDeadline ?? .max, deadline)
    }

    /// A message from `user` in `conversation` implies they stopped typing there, on every device.
    func endTyping(_ user: String, in conversation: String, now: Int64) {
        let key = TypingKey(conversation: conversation, user: user)
        guard let entry = ephemeral.typing.removeValue(forKey: key) else { return }
        for id in entry.devices.keys { ephemeral.typingByDevice[id]?.remove(key) }
        announceTyping(key, typing: false, recipients: entry.recipients)
    }

    /// A device disconnected: its typing ends, and its user's presence may have changed (E2).
    func deviceLeft(_ state: DeviceState, now: Int64) {
        let id = ObjectIdentifier(state)
        for key in ephemeral.typingByDevice.removeValue(forKey: id) ?? [] { removeTyping(id, from: key) }
        if devicesByUser[state.user] == nil { userLeft(state.user, now: now) }
        presenceChanged(state.user)
    }

    /// A device's scene changed: leaving a thread (or the foreground) ends its typing there; presence may change (E2).
    func sceneChanged(_ state: DeviceState, from previous: SceneReport) {
        if previous.foreground != state.scene.foreground { presenceChanged(state.user) }
        guard let left = previous.viewing, left != state.scene.viewing else { return }
        let id = ObjectIdentifier(state)
        let key = TypingKey(conversation: left, user: state.user)
        guard ephemeral.typingByDevice[id]?.contains(key) == true else { return }
        removeTyping(id, from: key)
    }

    /// Ends the typing whose devices fell silent for 6 s.
    func expireTyping(now: Int64) {
        guard let deadline = ephemeral.typingDeadline, deadline <= now else { return }
        var next: Int64?
        for (key, entry) in ephemeral.typing {
            for (id, until) in entry.devices {
                if until <= now { removeTyping(id, from: key) } else { next = min(next ?? .max, until) }
            }
        }
        ephemeral.typingDeadline = next
    }

    /// One device stops typing in `key`'s conversation; the last one of its user ends the indicator.
    private func removeTyping(_ id: ObjectIdentifier, from key: TypingKey) {
        ephemeral.typingByDevice[id]?.remove(key)
        if ephemeral.typingByDevice[id]?.isEmpty == true { ephemeral.typingByDevice[id] = nil }
        guard var entry = ephemeral.typing[key], entry.devices.removeValue(forKey: id) != nil else { return }
        if entry.devices.isEmpty {
            ephemeral.typing[key] = nil
            announceTyping(key, typing: false, recipients: entry.recipients)
        } else {
            ephemeral.typing[key] = entry
        }
    }

    /// Tells the recipients' devices here, and the other nodes, that `key.user` started or stopped typing.
    private func announceTyping(_ key: TypingKey, typing: Bool, recipients: [String]? = nil) {
        let users = recipients ?? ephemeral.typing[key]?.recipients ?? []
        deliverTyping(conversation: key.conversation, user: key.user, typing: typing, to: users)
        if let cluster, store is any EphemeralSignalStore {
            ephemeral.signals.append(.typing(node: cluster.node, conversation: key.conversation, user: key.user, typing: typing))
        }
    }

    /// Queues the typing event for the live devices of `users` on this node.
    func deliverTyping(conversation: String, user: String, typing: Bool, to users: [String]) {
        let targets = liveDevices(of: users.lazy.filter { $0 != user })
        guard !targets.isEmpty else { return }
        var event = EventFrame(event: .typing)
        event.conversationId = conversation
        event.user = user
        event.typing = typing
        ephemeral.outbox.append(SyncDelivery(payload: event.encodeBody(), devices: targets))
    }
}
