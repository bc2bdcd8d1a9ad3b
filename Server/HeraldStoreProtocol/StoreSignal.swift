/// What a store shared by several `herald-server` nodes tells each node about the others' commits (on PostgreSQL:
/// LISTEN/NOTIFY). A signal only says what changed; the node reads the details from the store.
public enum StoreSignal: Sendable, Equatable {
    /// A committed transaction appended event `seq` to `user`'s stream.
    case advanced(user: String, seq: Int64)
    /// The feed was (re-)established; signals may have been missed before it.
    case reconnected
    /// Another node asks `node` to push message `message` to its device `deviceKey` (P1 across nodes).
    case push(node: String, deviceKey: Int64, message: String)
    /// A push `node` delivered to its device `deviceKey` was withdrawn: the message was read (P5 across nodes).
    case pushCleared(node: String, deviceKey: Int64, conversation: String, message: String)
    /// `user`'s devices (every one, or those named `device`) were signed out on some node.
    case signedOut(user: String, device: String?)
}

/// A source of ``StoreSignal``s running on a thread of its own (a blocking LISTEN connection cannot share the sync
/// thread, which sleeps in its inbox). It hands each signal to the callback it was created with.
public protocol StoreSignalFeed: AnyObject, Sendable {
    /// Starts delivering signals.
    func start()
    /// Stops for good and releases the feed's connection. Idempotent.
    func stop()
}
