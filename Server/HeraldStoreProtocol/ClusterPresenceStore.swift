/// Where one connected device is, as every node of a cluster sees it (P1-P5 across nodes).
///
/// A row exists while the device is live (synced) on `node`; it is addressed across nodes by (`node`, `deviceKey`),
/// a number the node hands out per connection (device names may repeat across nodes).
public struct DevicePresence: Sendable, Equatable {
    /// The node holding the device's connection.
    public var node: String
    /// The connection's number on that node.
    public var deviceKey: Int64
    /// The device's user.
    public var user: String
    /// The device's name in the push outbox.
    public var device: String
    /// False only in `background` (P3).
    public var foreground: Bool
    /// The conversation the device is viewing (S1: in its thread and in the foreground), if any.
    public var viewing: String?

    public init(node: String, deviceKey: Int64, user: String, device: String, foreground: Bool, viewing: String?) {
        self.node = node
        self.deviceKey = deviceKey
        self.user = user
        self.device = device
        self.foreground = foreground
        self.viewing = viewing
    }
}

/// A node that died without leaving the cluster, taken over by exactly one live node (P4 across nodes).
public struct DeadNode: Sendable, Equatable {
    /// The dead node's id.
    public var node: String
    /// Its last heartbeat, on the store's clock (the clock of ``ClusterPresenceStore/messagesCommitted(by:since:)``).
    public var lastHeartbeat: Int64

    public init(node: String, lastHeartbeat: Int64) {
        self.node = node
        self.lastHeartbeat = lastHeartbeat
    }
}

/// A message a node committed, with the recipients some node already recorded a push of it for.
public struct CommittedMessage: Sendable, Equatable {
    public var message: String
    public var pushedUsers: Set<String>

    public init(message: String, pushedUsers: Set<String>) {
        self.message = message
        self.pushedUsers = pushedUsers
    }
}

/// What a store shared by several `herald-server` nodes adds so push decisions see every node's devices (P1-P5).
///
/// A single-node store (SQLite) does not conform: the sync core then decides from its in-memory devices alone,
/// exactly as before. Every node has a random id and a heartbeat; presence rows of a node whose heartbeat is
/// older than the caller's window are ignored (the node died without cleaning up) and later deleted.
/// Heartbeats use the database's clock, so nodes with skewed clocks agree.
public protocol ClusterPresenceStore: AnyObject {
    /// Registers this node: its heartbeat starts now, and pushes this store records carry `node` so a withdrawal
    /// (P5) on another node can reach them.
    func joinCluster(node: String) throws
    /// Removes the node and its presence rows (a clean shutdown).
    func leaveCluster(node: String) throws
    /// Refreshes the node's heartbeat and deletes the nodes (and their presence rows) silent for more than
    /// `pruneSilentMilliseconds`.
    func heartbeat(node: String, pruneSilentMilliseconds: Int64) throws
    /// Claims for `node` the other nodes that died without leaving: silent for more than `silentMilliseconds`, or
    /// known to have died (as ``presence(users:aliveMilliseconds:excluding:)`` judges). Each dead node is returned to
    /// exactly one caller, once, so the pushes it held in their grace period (P4, in its memory) are decided once.
    func takeOverDeadNodes(node: String, silentMilliseconds: Int64) throws -> [DeadNode]
    /// The messages `node` committed at or after `since` (the store's clock), oldest first.
    func messagesCommitted(by node: String, since: Int64) throws -> [CommittedMessage]
    /// Brings `node`'s own presence rows up to date: deletes those of the `departed` device keys and creates or
    /// replaces the `present` rows (all of `node`, each key once). In one transaction outside the nodes' write lock,
    /// like the heartbeat: the rows are this node's alone, so other nodes' writes neither wait for it nor see the write
    /// clock move, and a batch of connects or departures is a statement or two, not a round trip per device.
    func writePresence(node: String, departed: [Int64], present: [DevicePresence]) throws
    /// The live devices of `users` on every node but `excluding` that is alive: heard from within `aliveMilliseconds`
    /// and not known to have died (a store may tell sooner, e.g. by the node's connections).
    func presence(users: [String], aliveMilliseconds: Int64, excluding node: String) throws -> [DevicePresence]
    /// Records a push for one device of this node, addressed by its key so its withdrawal reaches it (P5).
    func enqueuePush(
        user: String, device: String, deviceKey: Int64, conversation: String, message: String, sender: String,
        preview: String, url: String, now: Int64
    ) throws -> Int64
    /// Asks `node` (once this transaction commits) to push `message` to its device `deviceKey`.
    func requestPush(node: String, deviceKey: Int64, message: String) throws
    /// Asks `node` (once this transaction commits) to alert its device `deviceKey` of a bell notification, should that
    /// device have lost its connection by then.
    func requestBellPush(node: String, deviceKey: Int64, notification: String) throws
    /// Claims the pushes of a message an application published from its own transaction: true for exactly one
    /// caller, the node that schedules them (P1-P4).
    func claimPublished(message: String, node: String, now: Int64) throws -> Bool
}

extension ClusterPresenceStore {
    /// The live devices of one user (see ``presence(users:aliveMilliseconds:excluding:)``).
    public func presence(user: String, aliveMilliseconds: Int64, excluding node: String) throws -> [DevicePresence] {
        try presence(users: [user], aliveMilliseconds: aliveMilliseconds, excluding: node)
    }
}
