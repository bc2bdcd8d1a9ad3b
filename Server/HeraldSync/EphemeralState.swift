import HeraldStoreProtocol
import HeraldRules

/// What the sync core keeps of typing and presence (E1, E2) while it lasts: nothing of it is stored.
struct EphemeralState<Device: Hashable> {
    // MARK: Typing (E1)

    /// How long a start lasts without a refresh before the server ends it.
    var typingExpiryMilliseconds: Int64 = 6_000
    /// Who types where: per (conversation, user), each typing device's deadline and who hears about it.
    var typing: [TypingKey: TypingEntry] = [:]
    /// The conversations each connected device types in (keyed by its state object while it is connected), so a
    /// disconnect or a scene change ends exactly its own.
    var typingByDevice: [ObjectIdentifier: Set<TypingKey>] = [:]
    /// Each device's typing budget: a burst of 6 reports, then 2 per second (a client refreshes every 3 s and stops
    /// on every send). Beyond it reports are refused `rate_limited` and change nothing.
    var typingBudget = TokenBuckets<ObjectIdentifier>(ratePerSecond: 2, burst: 6)
    /// The earliest typing deadline, when some device types.
    var typingDeadline: Int64?

    // MARK: Presence (E2)

    /// One announcement per user every 2 s at most.
    var coalescer = PresenceCoalescer<String>()
    /// Users whose devices here changed since presence was last worked out.
    var changedUsers: Set<String> = []
    /// Users whose next announcement starts here and so goes to the other nodes too (one that started on another
    /// node is already known there).
    var changedHere: Set<String> = []
    /// When each user was last seen going offline (here, or as another node said, or as the store kept it).
    var lastSeen: [String: Int64] = [:]
    /// Users whose stored last-seen time was read (found or not), so an offline contact costs one read per process.
    var lastSeenRead: Set<String> = []
    /// Users who went offline here and whose time is not stored yet: written in the next batch's transaction.
    var lastSeenToStore: [String: Int64] = [:]
    /// Devices that just synced and are to be told their contacts' presence.
    var syncedDevices: [(device: Device, user: String)] = []
    /// The participants of conversations just created: their devices are to be told each other's presence.
    var introductions: [[String]] = []

    // MARK: Output

    /// Typing and presence events waiting to go out after the current batch's answers.
    var outbox: [SyncDelivery<Device>] = []
    /// Typing and presence for the other nodes, sent together once the batch is done.
    var signals: [EphemeralSignal] = []

    var nextDeadline: Int64? {
        let held = coalescer.nextDeadline?.milliseconds
        switch (typingDeadline, held) {
        case let (typing?, held?): return min(typing, held)
        case let (typing, held): return typing ?? held
        }
    }
}

/// One user typing in one conversation.
struct TypingKey: Hashable {
    let conversation: String
    let user: String
}

/// The devices of one user typing in one conversation, each with the time its start ends, and the users who hear of it.
struct TypingEntry {
    var devices: [ObjectIdentifier: Int64] = [:]
    /// The other participants when typing began (R5: only they hear of it).
    var recipients: [String]
}
