/// Size limits checked while decoding a request, before anything reaches the store.
public struct ProtocolLimits: Sendable {
    /// Longest message text in UTF-8 bytes.
    public var maxTextBytes: Int
    /// Longest id (conversation, message, notification, user, client message id) in UTF-8 bytes.
    public var maxIdBytes: Int
    /// Longest group title in UTF-8 bytes.
    public var maxTitleBytes: Int
    /// Most members named when creating a group (so a group has at most this many plus its creator). Fan-out is
    /// linear per recipient (one small stream row each, the event body stored once), so 1,000 is a size, not a risk.
    public var maxGroupMembers: Int
    /// Most message ids in one visibility ack.
    public var maxAckIds: Int
    /// Largest page a history request may ask for.
    public var maxHistoryPage: Int
    /// Longest image URL in UTF-8 bytes.
    public var maxURLBytes: Int
    /// Largest page a `members` request may ask for.
    public var maxMembersPage: Int { 500 }
    /// Largest page a `users` request may ask for, and the page it gets without `limit`.
    public var maxUsersPage: Int { 200 }
    public var defaultUsersPage: Int { 50 }
    /// Longest `search` text in UTF-8 bytes: a few words (the server searches at most eight of them).
    public var maxSearchBytes: Int { 256 }
    /// Largest page a `search` request may ask for, and the page it gets without `limit`.
    public var maxSearchPage: Int { 100 }
    public var defaultSearchPage: Int { 20 }

    public init(
        maxTextBytes: Int = 8192, maxIdBytes: Int = 128, maxTitleBytes: Int = 200, maxGroupMembers: Int = 1_000,
        maxAckIds: Int = 500, maxHistoryPage: Int = 200, maxURLBytes: Int = 2048
    ) {
        self.maxTextBytes = maxTextBytes
        self.maxIdBytes = maxIdBytes
        self.maxTitleBytes = maxTitleBytes
        self.maxGroupMembers = maxGroupMembers
        self.maxAckIds = maxAckIds
        self.maxHistoryPage = maxHistoryPage
        self.maxURLBytes = maxURLBytes
    }

    /// The defaults the server and the client both use.
    public static let `default` = ProtocolLimits()
}
