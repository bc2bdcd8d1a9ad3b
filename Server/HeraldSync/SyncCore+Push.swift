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
            title: preview.title, url: DeepLink.conversation(message.conversation).url)
    }
}

/// The device-only events of the push outbox (P3, P5): the same JSON whichever node or path sends them.
enum PushEvents {
    /// `push`: a message's notification for a background device, with the recipient's badge (U5) as of its decision.
    static func push(_ push: PushInfo, badge: Int) -> [UInt8] {
        var event = EventFrame(event: .push)
        event.push = push
        event.badge = badge
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
    /// Delivers the pushes whose grace period ended (P1-P4) to each recipient, through ``PushRules``: nobody is alerted
    /// when a device of theirs, on any node, is viewing the conversation, or when they read the message meanwhile;
    /// otherwise their background devices are. This node's get the `push` event here (it reads the same for everyone,
    /// so it is encoded once); with several nodes, every other node holding a background device of the recipient is
    /// asked (on commit) to push it there.
    ///
    /// Costs no store read per recipient: the remote devices of every recipient of every due push are one read, and
    /// a message's readers one more, only when someone is left to alert.
    func deliver(_ due: ArraySlice<PendingPush>, now: Int64, into deliveries: inout [SyncDelivery<Device>]) {
        // P3: alone, a node with no device in the background and nobody registered for pushes without a connection has
        // no one to alert; this costs nothing per recipient (the fan-out path's common case).
        if cluster == nil, presence.backgroundDevices == 0, knownUsersWithPushTargets().isEmpty { return }
        // A burst to one group is a run of due pushes in one conversation with the same recipients: each run's list is
        // looked at once (comparing two equal lists costs less than hashing every member again).
        let runs = Self.runsOfSameRecipients(due)
        // Devices without a connection are background devices too (a locked phone): their targets, one read for every
        // recipient of every due push, and none when this node knows nobody has one.
        var recipients: Set<String> = []
        for run in runs { recipients.formUnion(run.first.recipients) }
        let registered = pushTargets(of: recipients)
        // P3: alone, a node with no device in the background and no device without a connection has no one to alert.
        guard cluster != nil || presence.backgroundDevices > 0 || !registered.isEmpty else { return }
        // P1 here first, from memory: a recipient with a device here viewing the conversation is alerted nowhere.
        // Alone, P3 decides the rest here too.
        var work: [(pending: PendingPush, users: [String])] = []
        var everyone: Set<String> = []
        for run in runs {
            let conversation = run.first.push.conversation
            // Nobody here viewing the conversation (the common case) needs no look at each recipient's devices.
            let viewedHere = presence.isViewed(conversation)
            var undecided: [String] = []
            for user in run.first.recipients where !(viewedHere && isViewedHere(conversation, by: user)) {
                if cluster == nil, registered[user] == nil, !hasBackgroundDeviceHere(user) { continue }
                undecided.append(user)
                everyone.insert(user)
            }
            guard !undecided.isEmpty else { continue }
            for pending in due[run.range] { work.append((pending, undecided)) }
        }
        guard !work.isEmpty else { return }
        // The devices of everyone left on the other nodes, one read.
        var elsewhere: [String: [DevicePresence]] = [:]
        if let cluster {
            do {
                for presence in try cluster.store.presence(
                    users: Array(everyone), aliveMilliseconds: configuration.clusterPresenceTimeoutMilliseconds, excluding: cluster.node)
                {
                    elsewhere[presence.user, default: []].append(presence)
                }
            } catch {
                retryLater(work, now: now, because: "presence failed", error)
                return
            }
        }
        // P3: only a background device, here or on another node, or a device without a connection can be alerted.
        // Recipients with none of those are passed over before any more work per recipient (a message to a group
        // whose members are all in the foreground costs the reads above and nothing else).
        var alertable = Set(registered.keys)
        for (user, devices) in elsewhere where devices.contains(where: { !$0.foreground }) { alertable.insert(user) }
        if presence.backgroundDevices > 0 {
            for user in everyone where hasBackgroundDeviceHere(user) { alertable.insert(user) }
        }
        alertable.formIntersection(everyone)
        guard !alertable.isEmpty else { return }
        // N1-N3: the mutes and quiet hours of everyone left, one read.
        let settings: [String: UserAlertSettings]
        do { settings = try store.alertSettings(users: Array(alertable)) } catch {
            retryLater(work, now: now, because: "alert settings failed", error)
            return
        }
        // Who gets what, decided from reads alone; a transaction only when someone is to be alerted.
        var alerts: [(push: PushInfo, user: String, targets: [PushTarget], pending: PendingPush)] = []
        for (pending, undecided) in work {
            let (push, mentions) = (pending.push, pending.mentions)
            var decided: [(user: String, targets: [PushTarget], alert: RecipientAlert)] = []
            for user in undecided where alertable.contains(user) {
                let here = pushCandidates(of: user).map { $0.map(PushTarget.local) }
                let remote = (elsewhere[user] ?? []).map { PushCandidate(device: PushTarget.remote($0), isForeground: $0.foreground, viewing: $0.viewing) }
                let unconnected = Self.unconnectedTargets(registered[user] ?? [], here: here, remote: remote, devicesByName: devices)
                let alert = Self.recipientAlert(user, conversation: push.conversation, mentions: mentions, settings: settings[user], now: now)
                if case .unlessRead(let targets) = PushRules.decide(in: push.conversation, devices: here + remote + unconnected, alert: alert) {
                    decided.append((user, targets, alert))
                }
            }
            guard !decided.isEmpty else { continue }
            let readers: Set<String>
            let current: PushInfo
            do {
                // M1, M2: edited meanwhile, the push says the new text; unsent, it is not sent at all.
                guard let revised = try currentPush(push) else { continue }
                current = revised
                readers = Set(try store.readers(of: push.message).map(\.user))
            } catch {
                retryLater([(pending, decided.map(\.user))], now: now, because: "read state failed", error)
                continue
            }
            for (user, targets, alert) in decided where !readers.contains(user) { alerts.append((current.flagged(alert), user, targets, pending)) }
        }
        guard !alerts.isEmpty else { return }
        // One transaction for every outbox row and request; nothing goes out unless it commits (a push without its
        // outbox row could never be withdrawn, P5).
        var pushed: [SyncDelivery<Device>] = []
        var queued = false
        // Recipients whose own outbox rows failed (the rest of the transaction went on): put off once it commits.
        var putOff: [(pending: PendingPush, users: [String])] = []
        do {
            try store.transaction {
                for (push, user, targets, pending) in alerts {
                    var local: [Device] = []
                    var queuedHere = false
                    do {
                        try store.transaction {
                            for target in targets {
                                switch target {
                                case .local(let device):
                                    guard let name = devices[device]?.name else { continue }
                                    try enqueuePush(push, user: user, device: device, name: name, now: now)
                                    local.append(device)
                                case .remote(let presence):
                                    try cluster?.store.requestPush(node: presence.node, deviceKey: presence.deviceKey, message: push.message)
                                case .provider(let registration):
                                    try queueMessagePush(push, to: registration, now: now)
                                    queuedHere = true
                                }
                            }
                        }
                    } catch {
                        logger.debug("push put off: outbox failed", metadata: ["user": "\(user)", "error": "\(error)"])
                        putOff.append((pending, [user]))
                        continue
                    }
                    queued = queued || queuedHere
                    guard !local.isEmpty else { continue }
                    // The badge is the recipient's own: one body per recipient (few: only devices in the background).
                    let badge = try messagesBadge(user: user)
                    pushed.append(SyncDelivery(payload: PushEvents.push(push, badge: badge), devices: local))
                }
            }
        } catch {
            // Nothing of it committed: every alert decided here is decided again (those put off among them).
            var failed: [(pending: PendingPush, users: [String])] = []
            for alert in alerts {
                if let last = failed.last, last.pending.push.message == alert.pending.push.message {
                    failed[failed.count - 1].users.append(alert.user)
                } else {
                    failed.append((alert.pending, [alert.user]))
                }
            }
            retryLater(failed, now: now, because: "their transaction failed", error)
            return
        }
        if !putOff.isEmpty { retryLater(putOff, now: now, because: "outbox failed") }
        deliveries += pushed
        if queued { pushQueued?() }
    }

    /// A due push whose decision could not be read or written (the store busy, PostgreSQL's write lock held by an
    /// application transaction) is decided again this much later, for its `users` only, up to ``pushAttempts`` times:
    /// a store that recovers within half a minute still alerts them (P1-P4, with the state of then).
    static var pushRetryMilliseconds: Int64 { 2_000 }
    static var pushAttempts: Int { 15 }

    private func retryLater(_ failed: [(pending: PendingPush, users: [String])], now: Int64, because reason: String, _ error: (any Error)? = nil) {
        var dropped = 0
        for (pending, users) in failed where !users.isEmpty {
            guard pending.failedAttempts + 1 < Self.pushAttempts else {
                dropped += 1
                continue
            }
            var retry = pending
            retry.users = users
            retry.except = nil
            retry.deadline = now + Self.pushRetryMilliseconds
            retry.failedAttempts += 1
            pendingPushes.insert(retry)
        }
        logger.debug(
            "pushes put off: \(reason)",
            metadata: ["pushes": "\(failed.count)", "given up": "\(dropped)", "error": "\(error.map { "\($0)" } ?? "logged above")"])
        if dropped > 0 { logger.warning("pushes not delivered after \(Self.pushAttempts) attempts: \(reason)", metadata: ["pushes": "\(dropped)"]) }
    }

    /// `due` cut into runs of consecutive pushes in the same conversation to the same recipients, each with its first
    /// push (whose recipients the run shares).
    static func runsOfSameRecipients(_ due: ArraySlice<PendingPush>) -> [(first: PendingPush, range: Range<Int>)] {
        var runs: [(first: PendingPush, range: Range<Int>)] = []
        var start = due.startIndex
        for index in due.indices.dropFirst() {
            let (first, pending) = (due[start], due[index])
            if pending.push.conversation == first.push.conversation, pending.hasSameRecipients(as: first) { continue }
            runs.append((first, start..<index))
            start = index
        }
        if start < due.endIndex { runs.append((due[start], start..<due.endIndex)) }
        return runs
    }

    /// The user's push targets as candidates of the push rule (``PushRules/unconnected(_:connectedNames:)``: those whose
    /// device has no connection anywhere count as in the background).
    static func unconnectedTargets(
        _ targets: [PushTargetRecord], here: [PushCandidate<PushTarget>], remote: [PushCandidate<PushTarget>], devicesByName: [Device: DeviceState]
    ) -> [PushCandidate<PushTarget>] {
        guard !targets.isEmpty else { return [] }
        var connected: Set<String> = []
        for candidate in here + remote {
            switch candidate.device {
            case .local(let device): if let name = devicesByName[device]?.name { connected.insert(name) }
            case .remote(let presence): connected.insert(presence.device)
            case .provider: break
            }
        }
        return PushRules.unconnected(targets.map { ($0.device, PushTarget.provider($0)) }, connectedNames: connected)
    }

    /// Writes the outbox row of one of this node's devices (keyed so other nodes can withdraw it, when there are any).
    func enqueuePush(_ push: PushInfo, user: String, device: Device, name: String, now: Int64) throws {
        if let cluster {
            _ = try cluster.store.enqueuePush(
                user: user, device: name, deviceKey: cluster.key(for: device), conversation: push.conversation, message: push.message,
                sender: push.sender, preview: push.preview, url: push.url, now: now)
        } else {
            _ = try store.enqueuePush(
                user: user, device: name, conversation: push.conversation, message: push.message, sender: push.sender,
                preview: push.preview, url: push.url, now: now)
        }
    }

    /// A device the push rule may pick: one of this node's, one another node reports, or one without a connection
    /// that its push provider reaches.
    enum PushTarget {
        case local(Device)
        case remote(DevicePresence)
        case provider(PushTargetRecord)
    }

    /// P1: whether a device of `user` here is viewing `conversation` (no allocation: it runs per recipient).
    func isViewedHere(_ conversation: String, by user: String) -> Bool {
        guard let devices = devicesByUser[user] else { return false }
        for device in devices where device.state.scene.viewing == conversation { return true }
        return false
    }

    /// Whether `user` has a connected device here in the background.
    func hasBackgroundDeviceHere(_ user: String) -> Bool {
        guard presence.backgroundDevices > 0, let devices = devicesByUser[user] else { return false }
        for device in devices where !device.state.scene.foreground { return true }
        return false
    }

    /// What the push rule needs to know of the user's devices on this node (live: synced, so a push can reach it).
    func pushCandidates(of user: String) -> [PushCandidate<Device>] {
        (devicesByUser[user] ?? []).map { pushCandidate($0.device, $0.state) }
    }

    func pushCandidate(_ device: Device, _ state: DeviceState) -> PushCandidate<Device> {
        PushCandidate(device: device, isForeground: state.scene.foreground, viewing: state.scene.viewing, isLive: state.cursor != nil)
    }
}
