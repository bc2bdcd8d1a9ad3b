/// What a store shared by several `herald-server` nodes tells each node about the others' commits (on PostgreSQL:
/// one NOTIFY per committed transaction naming a wake-up row). A signal only carries what the node needs to act.
public enum StoreSignal: Sendable, Equatable {
    /// Another node's committed transaction appended these runs to users' streams.
    case streams(StreamRuns)
    /// The feed was (re-)established; signals may have been missed before it.
    case reconnected
    /// Another node asks `node` to push message `message` to its device `deviceKey` (P1 across nodes).
    case push(node: String, deviceKey: Int64, message: String)
    /// Another node asks `node` to alert its device `deviceKey` of bell notification `notification` if that device has
    /// no connection any more (B1 for a phone locked a moment before: the node that held its connection decides).
    case bellPush(node: String, deviceKey: Int64, notification: String)
    /// A push `node` delivered to its device `deviceKey` was withdrawn: the message was read (P5 across nodes).
    case pushCleared(node: String, deviceKey: Int64, conversation: String, message: String)
    /// `user`'s devices (every one, or those named `device`) were signed out on some node.
    case signedOut(user: String, device: String?)
    /// An application published `message` from its own transaction (no node sent it): one node schedules its pushes.
    case published(message: String)
    /// A typing or presence change of another node (E1, E2): not stored anywhere.
    case ephemeral(EphemeralSignal)
}

/// The stream events one committed transaction appended: per user, runs of consecutive seqs, each event's body
/// stored once for all the users it went to.
public struct StreamRuns: Sendable, Equatable {
    /// Seqs `firstSeq ..< firstSeq + count` of `user`'s stream are `bodies[firstBody ..< firstBody + count]`.
    public struct Run: Sendable, Equatable {
        public var user: String
        public var firstSeq: Int64
        public var firstBody: Int
        public var count: Int

        public init(user: String, firstSeq: Int64, firstBody: Int, count: Int) {
            self.user = user
            self.firstSeq = firstSeq
            self.firstBody = firstBody
            self.count = count
        }

        /// The run's last seq.
        public var lastSeq: Int64 { firstSeq + Int64(count) - 1 }
    }

    public var runs: [Run]
    /// The event bodies (JSON objects without `seq`), in the order they were stored.
    public var bodies: [[UInt8]]

    public init(runs: [Run], bodies: [[UInt8]]) {
        self.runs = runs
        self.bodies = bodies
    }
}

/// A source of ``StoreSignal``s running on a thread of its own (a blocking LISTEN connection cannot share the sync
/// thread, which sleeps in its inbox). It hands each signal to the callback it was created with.
public protocol StoreSignalFeed: AnyObject, Sendable {
    /// Starts delivering signals.
    func start()
    /// Stops for good and releases the feed's connection. Idempotent.
    func stop()
}
