import HeraldProtocol
import HeraldRules
import HeraldStoreProtocol
import Logging

/// Devices reachable without a connection: their targets, and the pushes queued for them (P1-P5 for a locked phone).
extension SyncCore {
    /// Registers (or replaces) where the user's device `device` is alerted while it has no connection.
    func registerPushTarget(user: String, device: String, registration: PushRegistration, now: Int64) throws -> PushTargetRecord {
        let target = try PushTargetRules.target(user: user, device: device, registration: registration, settings: configuration.push, now: now)
        // One target per device (this device's own is replaced); a new device only while the user is under the cap.
        // Checked on the sync thread, which registers for /sync and the backend API alike; nodes of a cluster check
        // their own registrations, so the cap holds per node.
        let others = try store.pushTargets(users: [user]).filter { $0.device != device }.count
        let cap = max(configuration.push.maxTargetsPerUser, 0)
        guard others < cap else {
            throw ErrorInfo(
                .conflict,
                "\(user) already has \(others) push targets, the most this server keeps per user: unregister one (push.unregister, or DELETE …/push-targets/{device}) before adding another")
        }
        let stored = try store.registerPushTarget(target, now: now)
        usersWithPushTargets?.insert(user)
        return stored
    }

    /// The message an opaque push reference (`p<outbox id>`, `--push-preview none`) alerted `user` for, as it reads
    /// now. Another user's reference, a withdrawn or pruned push, or a message no longer visible to the user (R5) are
    /// all "not found", alike.
    func resolvePush(_ reference: String, user: String) throws -> MessageInfo {
        guard let key = RecordID.parse(RecordID.push, reference), let push = try store.pushes(user: user).first(where: { $0.id == key }),
            let message = try store.message(id: push.message), try store.isParticipant(user: user, conversation: message.conversation)
        else { throw ErrorInfo(.notFound, "no such push: a reference resolves only for its own user, until it is withdrawn (P5) or pruned") }
        return message.info(senderName: try name(of: message.sender))
    }

    /// Forgets the device's target (every device's when `device` is nil: a sign-out of all of them) and what is queued
    /// for it: a signed-out phone is never alerted again.
    func removePushTargets(user: String, device: String?) throws {
        if let device {
            try store.removePushTarget(user: user, device: device)
        } else {
            try store.removePushTargets(user: user)
        }
    }

    /// Alone, the users with a push target (read once, then kept by this node's registrations). A failed read answers
    /// "nobody" this time and is tried again next time.
    func knownUsersWithPushTargets() -> Set<String> {
        if let known = usersWithPushTargets { return known }
        do {
            let known = Set(try store.usersWithPushTargets())
            usersWithPushTargets = known
            return known
        } catch {
            logger.debug("push targets not read", metadata: ["error": "\(error)"])
            return []
        }
    }

    /// The push targets of `users`, or none without a store read when this node (alone) knows nobody of them has one.
    func pushTargets(of users: some Collection<String>) -> [String: [PushTargetRecord]] {
        if cluster == nil {
            let known = knownUsersWithPushTargets()
            guard !known.isEmpty, users.contains(where: known.contains) else { return [:] }
        }
        do {
            return Dictionary(grouping: try store.pushTargets(users: Array(users)), by: \.user)
        } catch {
            logger.debug("push targets not read", metadata: ["error": "\(error)"])
            return [:]
        }
    }

    /// What a push says, cut to `--push-preview`: the queue and the provider never see more.
    func pushContent(title: String, body: String) -> (title: String, body: String) {
        switch configuration.push.preview {
        case .full: (title, body)
        case .sender: (title, "New message")
        case .none: ("Herald", "New message")
        }
    }

    /// Queues a message's alert for a device without a connection (P2 fields, U5 badge), and remembers it in the
    /// outbox so reading the message elsewhere withdraws it (P5).
    ///
    /// With `--push-preview none` the queued push holds no sender and no link, and carries the outbox row's id as its
    /// opaque reference instead of the conversation and message ids (which the queue keeps only to cancel and revise).
    func queueMessagePush(_ push: PushInfo, to target: PushTargetRecord, now: Int64) throws {
        let badge = try messagesBadge(user: target.user)
        let content = pushContent(title: push.title, body: push.preview)
        let outbox = try store.enqueuePush(
            user: target.user, device: target.device, conversation: push.conversation, message: push.message, sender: push.sender,
            preview: push.preview, url: push.url, now: now)
        let opaque = configuration.push.preview == .none
        var delivery = PushDeliveryRecord(
            target: target, kind: .message, conversation: push.conversation, message: push.message, sender: opaque ? nil : push.sender,
            title: content.title, body: content.body, url: opaque ? nil : push.url, badge: badge, createdAt: now,
            expiresAt: now + configuration.push.timeToLiveMilliseconds)
        delivery.quiet = push.quiet ?? false  // N3
        delivery.mentioned = push.mentioned ?? false  // N2
        if opaque { delivery.reference = RecordID.format(RecordID.push, outbox) }
        try store.enqueuePushDelivery(delivery, notBefore: now)
    }

    /// P5 for devices without a connection: a push still queued is cancelled (it never alerts); one already out is
    /// followed by a withdrawal, which the app uses to remove the delivered notification.
    func withdrawQueuedPushes(_ withdrawn: [PushRecord], user: String, conversation: String, message: String, now: Int64, step: inout SyncStep<Device>) throws {
        let connected = Set((devicesByUser[user] ?? []).map(\.state.name))
        let devices = Set(withdrawn.map(\.device)).subtracting(connected)
        guard !devices.isEmpty else { return }
        var queued = false
        for target in pushTargets(of: [user])[user] ?? [] where devices.contains(target.device) {
            if try store.cancelPushDeliveries(target: target.id, kind: .message, message: message, notification: nil) > 0 { continue }
            let badge = try messagesBadge(user: user)
            var withdrawal = PushDeliveryRecord(
                target: target, kind: .withdraw, conversation: conversation, message: message, badge: badge, createdAt: now,
                expiresAt: now + configuration.push.timeToLiveMilliseconds)
            // The alert carried its outbox row's id: the withdrawal names the same one.
            if configuration.push.preview == .none, let alert = withdrawn.first(where: { $0.device == target.device }) {
                withdrawal.reference = RecordID.format(RecordID.push, alert.id)
            }
            try store.enqueuePushDelivery(withdrawal, notBefore: now)
            queued = true
        }
        if queued { step.effects.append(.pushQueued) }
    }

    /// B1 for a locked phone: a new bell notification alerts the user's devices that have no connection, after P4's
    /// grace (reading it meanwhile cancels it), with the bell count as the badge (B2).
    /// A device connected to another node gets the bell through its stream, but it may have lost that connection a
    /// moment ago (its presence row not yet deleted): that node, which knows, is asked to alert it if so.
    func queueBellPush(_ notification: NotificationRecord, bellUnread: Int, now: Int64, step: inout SyncStep<Device>) throws {
        guard let targets = pushTargets(of: [notification.user])[notification.user] else { return }
        let connectedHere = Set((devicesByUser[notification.user] ?? []).map(\.state.name))
        var elsewhere: [String: [DevicePresence]] = [:]
        if let cluster {
            for presence in try cluster.store.presence(
                users: [notification.user], aliveMilliseconds: configuration.clusterPresenceTimeoutMilliseconds, excluding: cluster.node)
            {
                elsewhere[presence.device, default: []].append(presence)
            }
        }
        var queued = false
        for target in targets where !connectedHere.contains(target.device) {
            if let remote = elsewhere[target.device], let cluster {
                for presence in remote {
                    try cluster.store.requestBellPush(node: presence.node, deviceKey: presence.deviceKey, notification: notification.id)
                }
                continue
            }
            try queueBellDelivery(notification, to: target, bellUnread: bellUnread, now: now)
            queued = true
        }
        if queued { step.effects.append(.pushQueued) }
    }

    /// The bell alert for one device without a connection, due when P4's grace since the notification ends (reading
    /// it meanwhile cancels it), remembered so a later read withdraws it (P5).
    func queueBellDelivery(_ notification: NotificationRecord, to target: PushTargetRecord, bellUnread: Int, now: Int64) throws {
        let content = pushContent(title: "Herald", body: notification.text)
        // `--push-preview none`: no actor and no link (a notification's link may name a conversation); the
        // notification's id, one user's own, is the opaque reference.
        let opaque = configuration.push.preview == .none
        var delivery = PushDeliveryRecord(
            target: target, kind: .bell, notification: notification.id, sender: opaque ? nil : notification.actor, title: content.title,
            body: content.body, url: opaque ? nil : notification.url ?? DeepLink.notifications.url, badge: bellUnread, createdAt: now,
            expiresAt: now + configuration.push.timeToLiveMilliseconds)
        if opaque { delivery.reference = notification.id }
        try store.enqueuePushDelivery(delivery, notBefore: max(now, notification.createdAt + max(configuration.pushGraceMilliseconds, 0)))
        try store.recordBellAlert(target: target.id, notification: notification.id, now: now)
    }

    /// P4 and P5 for bell pushes: a notification read within the grace is never pushed, and one already pushed is
    /// withdrawn (the bell count, now lower, comes as the badge).
    func withdrawBellPushes(user: String, notifications: [String], now: Int64, step: inout SyncStep<Device>) throws {
        guard !notifications.isEmpty else { return }
        let alerts = try store.takeBellAlerts(user: user, notifications: notifications)
        guard !alerts.isEmpty else { return }
        let bellUnread = try store.unreadNotificationCount(user: user)
        var queued = false
        for (target, notification) in alerts {
            if try store.cancelPushDeliveries(target: target.id, kind: .bell, message: nil, notification: notification) > 0 { continue }
            var withdrawal = PushDeliveryRecord(
                target: target, kind: .withdraw, notification: notification, badge: bellUnread, createdAt: now,
                expiresAt: now + configuration.push.timeToLiveMilliseconds)
            if configuration.push.preview == .none { withdrawal.reference = notification }
            try store.enqueuePushDelivery(withdrawal, notBefore: now)
            queued = true
        }
        if queued { step.effects.append(.pushQueued) }
    }
}
