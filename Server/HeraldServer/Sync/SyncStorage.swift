import HeraldStoreProtocol

/// The store the composition root opened for the sync service (which owns and closes it from then on) and, when
/// several nodes share that store, how this node hears of the others' commits.
///
/// ```swift
/// let storage = SyncStorage(store: try SQLiteStore(path: "herald.db", checkpointsInBackground: true))
/// let sync = try SyncService(storage: storage, options: options, server: server, logger: logger)
/// ```
public struct SyncStorage {
    /// The database: users, streams, messages, the signing secret and the API keys.
    public var store: any SyncStore & APIKeyStore
    /// Set when other nodes share ``store``: makes this node's feed of their commits, handing every signal to the
    /// callback (on the feed's thread). The node then also joins the store's cluster presence. nil: a single node.
    /// The first argument is this node's cluster id (the feed may skip what the node itself committed).
    public var openSignalFeed: (@Sendable (String, @escaping @Sendable (StoreSignal) -> Void) -> any StoreSignalFeed)?

    public init(
        store: any SyncStore & APIKeyStore,
        openSignalFeed: (@Sendable (String, @escaping @Sendable (StoreSignal) -> Void) -> any StoreSignalFeed)? = nil
    ) {
        self.store = store
        self.openSignalFeed = openSignalFeed
    }
}
