import HeraldProtocol
import HeraldRules
import HeraldStoreProtocol
import Logging

/// A push request or withdrawal another node addressed to one of this node's devices (P1-P5 across nodes).
public enum ClusterSignal: Sendable, Equatable {
    /// Push `message` to the device with this key, if it is still live, in the background and the message unread.
    case push(deviceKey: Int64, message: String)
    /// Alert the device with this key of bell notification `notification`, if it has lost its connection meanwhile.
    case bellPush(deviceKey: Int64, notification: String)
    /// The push of `message` this device got was withdrawn: the message was read on another node (P5).
    case pushCleared(deviceKey: Int64, conversation: String, message: String)
    /// The user's devices (every one, or those named `device`) were signed out on some node: close them here too.
    case signedOut(user: String, device: String?)
    /// An application published `message` from its own transaction: the node that claims it schedules its pushes.
    case published(message: String)
    /// Another node's typing or presence change (E1, E2), for this node's devices.
    case ephemeral(EphemeralSignal)
}

/// This node's part of the cluster presence (P1-P5 across nodes): its id, the keys other nodes address its devices by, and
/// the devices whose presence row must be written after the current batch.
final class ClusterPresence<Device: Hashable> {
    let node: String
    let store: any ClusterPresenceStore
    private(set) var keys: [Device: Int64] = [:]
    private(set) var devicesByKey: [Int64: Device] = [:]
    private var lastKey: Int64 = 0
    /// Devices whose scene or liveness changed since their row was last written.
    var changed: Set<Device> = []
    /// Keys of devices that disconnected since the last write.
    var departed: [Int64] = []
    /// Devices that disconnected lately, by key: another node may still have seen their presence row and asked this node
    /// to alert them; this node, which held the connection, then alerts them as devices without one.
    private(set) var recentlyDeparted: [Int64: (user: String, name: String, at: Int64)] = [:]
    /// How long a departed device's key is remembered: far longer than a presence row can be seen after its delete.
    static var departureMemoryMilliseconds: Int64 { 60_000 }
    /// When the next heartbeat is due (ms since the epoch).
    var nextHeartbeat: Int64 = .min

    init(node: String, store: any ClusterPresenceStore) {
        self.node = node
        self.store = store
    }

    /// The device's key, handed out on first use.
    func key(for device: Device) -> Int64 {
        if let key = keys[device] { return key }
        lastKey += 1
        keys[device] = lastKey
        devicesByKey[lastKey] = device
        return lastKey
    }

    /// Forgets a disconnected device; its row is deleted with the next write.
    func depart(_ device: Device, user: String, name: String, now: Int64) {
        changed.remove(device)
        guard let key = keys.removeValue(forKey: device) else { return }
        devicesByKey[key] = nil
        departed.append(key)
        recentlyDeparted[key] = (user, name, now)
    }

    /// Drops departures older than ``departureMemoryMilliseconds``.
    func forgetOldDepartures(now: Int64) {
        guard !recentlyDeparted.isEmpty else { return }
        recentlyDeparted = recentlyDeparted.filter { now - $0.value.at < Self.departureMemoryMilliseconds }
    }
}

extension SyncCore {
    /// Joins the cluster of nodes sharing this core's store, as `node`: from now on device presence is shared and
    /// push decisions (P1-P5) consider every node's devices. Throws when the store is not shared (SQLite).
    public func joinCluster(node: String) throws {
        guard let shared = store as? any ClusterPresenceStore else {
            throw StoreError(kind: .other, message: "this store is not shared by several nodes")
        }
        try shared.joinCluster(node: node)
        cluster = ClusterPresence(node: node, store: shared)
    }

    /// Deletes this node's presence (clean shutdown); other nodes stop pushing through it at once.
    public func leaveCluster() {
        guard let cluster else { return }
        do { try cluster.store.leaveCluster(node: cluster.node) } catch {
            logger.debug("could not leave the cluster", metadata: ["error": "\(error)"])
        }
    }

    /// Notes that a request may have changed what other nodes must know about the device (its sync or scene).
    func presenceMayHaveChanged(_ device: Device, by request: ClientRequest) {
        guard let cluster else { return }
        switch request {
        case .sync, .scene: cluster.changed.insert(device)
        default: break
        }
    }

    /// Writes the presence rows of the devices changed in the last batch (after its commit, before its answers go
    /// out, so a client that saw its `scene` answered is already visible to every node). A failed write is retried
    /// with the next batch or heartbeat.
    func publishPresence() {
        guard let cluster, !cluster.changed.isEmpty || !cluster.departed.isEmpty else { return }
        var present: [DevicePresence] = []
        for device in cluster.changed {
            guard let state = devices[device], state.cursor != nil else { continue }
            let scene = state.scene
            present.append(
                DevicePresence(
                    node: cluster.node, deviceKey: cluster.key(for: device), user: state.user, device: state.name,
                    foreground: scene.foreground, viewing: scene.viewing))
        }
        do {
            try cluster.store.writePresence(node: cluster.node, departed: cluster.departed, present: present)
            cluster.changed.removeAll(keepingCapacity: true)
            cluster.departed.removeAll(keepingCapacity: true)
        } catch {
            logger.debug("presence not written", metadata: ["error": "\(error)"])
        }
    }

    /// Refreshes this node's heartbeat when due (other nodes ignore its devices once it falls silent).
    func clusterHeartbeat(now: Int64) {
        guard let cluster, now >= cluster.nextHeartbeat else { return }
        cluster.nextHeartbeat = now + max(configuration.clusterHeartbeatMilliseconds, 1)
        cluster.forgetOldDepartures(now: now)
        do {
            try cluster.store.heartbeat(node: cluster.node, pruneSilentMilliseconds: 10 * configuration.clusterPresenceTimeoutMilliseconds)
        } catch {
            logger.debug("cluster heartbeat failed", metadata: ["error": "\(error)"])
        }
        takeOverPushesOfDeadNodes(cluster, now: now)
        publishPresence()
    }

    /// Handles what another node asked of one of this node's devices.
    func receive(_ signal: ClusterSignal, now: Int64, step: inout SyncStep<Device>) {
        guard let cluster else { return }
        switch signal {
        case .push(let key, let message):
            guard let device = cluster.devicesByKey[key], let state = devices[device] else {
                if let gone = cluster.recentlyDeparted[key] { pushToDeparted(gone, message: message, now: now, step: &step) }
                return
            }
            // The device may have come to the foreground or gone since the other node looked: the rule decides again.
            let candidate = pushCandidate(device, state)
            do {
                let payload = try store.transaction { () throws -> [UInt8]? in
                    guard let record = try store.message(id: message), record.unsentAt == nil,
                        let conversation = try store.conversation(id: record.conversation)
                    else { return nil }
                    let alert = Self.recipientAlert(
                        state.user, conversation: record.conversation, mentions: Self.mentions(of: record, in: conversation),
                        settings: try store.alertSettings(users: [state.user])[state.user], now: now)
                    guard case .unlessRead = PushRules.decide(in: record.conversation, devices: [candidate], alert: alert),
                        try !store.isRead(user: state.user, message: message)
                    else { return nil }
                    let push = PushPreview.info(for: record, senderName: try name(of: record.sender), in: conversation).flagged(alert)
                    try enqueuePush(push, user: state.user, device: device, name: state.name, now: now)
                    return PushEvents.push(push, badge: try messagesBadge(user: state.user))
                }
                if let payload { step.effects.append(.deviceEvent([device], payload)) }
            } catch {
                logger.debug("push from another node not delivered", metadata: ["error": "\(error)"])
            }
        case .bellPush(let key, let notification):
            // Still connected here: its stream brought the bell. Gone meanwhile: it is a device without a connection.
            guard cluster.devicesByKey[key] == nil, let gone = cluster.recentlyDeparted[key] else { return }
            bellPushToDeparted(gone, notification: notification, now: now, step: &step)
        case .pushCleared(let key, let conversation, let message):
            guard let device = cluster.devicesByKey[key], devices[device] != nil else { return }
            step.effects.append(.deviceEvent([device], PushEvents.cleared(conversation: conversation, message: message)))
        case .signedOut(let user, let device):
            // The node that took the sign-out closed its own devices already; these are the others'.
            closeSignedOut(user, device: device, step: &step)
        case .published(let message):
            // Every node hears it; the first to claim it decides its pushes for every node's devices, as a sender would.
            do {
                try store.transaction {
                    guard try cluster.store.claimPublished(message: message, node: cluster.node, now: now),
                        let record = try store.message(id: message), let conversation = try store.conversation(id: record.conversation)
                    else { return }
                    schedulePushes(
                        for: record, in: conversation, senderName: try name(of: record.sender), mentions: Self.mentions(of: record, in: conversation),
                        now: now, step: &step)
                }
            } catch {
                logger.debug("pushes of a published message not scheduled", metadata: ["error": "\(error)"])
            }
        case .ephemeral(let ephemeral):
            receive(ephemeral, now: now)
        }
    }
}

extension SyncCore {
    /// Another node asked to push `message` to a device of this node that has disconnected since: if the device is
    /// registered for pushes without a connection and the message is still unread, its provider gets it (P3 for a
    /// phone locked a moment before the message).
    func pushToDeparted(_ gone: (user: String, name: String, at: Int64), message: String, now: Int64, step: inout SyncStep<Device>) {
        guard !(devicesByUser[gone.user] ?? []).contains(where: { $0.state.name == gone.name }),
              let target = pushTargets(of: [gone.user])[gone.user]?.first(where: { $0.device == gone.name }) else { return }
        do {
            let queued = try store.transaction { () throws -> Bool in
                guard let record = try store.message(id: message), record.unsentAt == nil,
                      let conversation = try store.conversation(id: record.conversation),
                      try !store.isRead(user: gone.user, message: message) else { return false }
                // The deciding node judged the mute already; the rule runs again for what may have changed since.
                let alert = Self.recipientAlert(
                    gone.user, conversation: record.conversation, mentions: Self.mentions(of: record, in: conversation),
                    settings: try store.alertSettings(users: [gone.user])[gone.user], now: now)
                let candidates = PushRules.unconnected([(name: gone.name, device: target)], connectedNames: [])
                guard case .unlessRead = PushRules.decide(in: record.conversation, devices: candidates, alert: alert) else { return false }
                let push = PushPreview.info(for: record, senderName: try name(of: record.sender), in: conversation).flagged(alert)
                try queueMessagePush(push, to: target, now: now)
                return true
            }
            if queued { step.effects.append(.pushQueued) }
        } catch {
            logger.debug("push to a departed device not queued", metadata: ["error": "\(error)"])
        }
    }

    /// B1 for a device that disconnected after another node saw it connected: the bell alert goes to its provider, after
    /// what is left of P4's grace, unless the notification was read meanwhile.
    func bellPushToDeparted(_ gone: (user: String, name: String, at: Int64), notification: String, now: Int64, step: inout SyncStep<Device>) {
        guard !(devicesByUser[gone.user] ?? []).contains(where: { $0.state.name == gone.name }),
              let target = pushTargets(of: [gone.user])[gone.user]?.first(where: { $0.device == gone.name }) else { return }
        do {
            let queued = try store.transaction { () throws -> Bool in
                guard let record = try store.notifications(user: gone.user, limit: store.notificationsKept).first(where: { $0.id == notification }),
                      !record.read else { return false }
                try queueBellDelivery(record, to: target, bellUnread: try store.unreadNotificationCount(user: gone.user), now: now)
                return true
            }
            if queued { step.effects.append(.pushQueued) }
        } catch {
            logger.debug("bell push to a departed device not queued", metadata: ["error": "\(error)"])
        }
    }
}
