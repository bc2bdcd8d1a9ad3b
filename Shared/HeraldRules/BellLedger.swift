/// B1: what the bell shows. Message events are never among them.
public enum BellKind: String, Hashable, Sendable, CaseIterable {
    /// Someone followed the user.
    case follow
    /// Someone reacted to the user's message or post.
    case reaction
    /// Someone commented.
    case comment
    /// Someone mentioned the user.
    case mention
    /// A reminder fell due.
    case reminder
    /// A message from the system.
    case system
}

/// One bell notification.
public struct BellItem: Hashable, Sendable, Identifiable {
    /// Server id, e.g. "n1".
    public var id: String
    /// Kind (B1).
    public var kind: BellKind
    /// Display text.
    public var text: String
    /// Whether it has been read (B3).
    public var read: Bool
    /// Creation time or server order; larger is newer (B4 keeps newest first).
    public var createdAt: Int64

    /// Makes an item.
    public init(id: String, kind: BellKind, text: String, read: Bool = false, createdAt: Int64) {
        self.id = id
        self.kind = kind
        self.text = text
        self.read = read
        self.createdAt = createdAt
    }
}

/// B1–B4: the bell feed of one user as one device sees it: newest first, at most 100, with its badge.
///
/// ```swift
/// var bell = BellLedger()
/// let events = bell.handle(.received(BellItem(id: "n1", kind: .follow, text: "bob followed you", createdAt: 10), sequence: 7))
/// // [.changed(unread: 1, badgeText: "1", pulse: true)]
/// ```
public struct BellLedger: Sendable {
    /// B4: how many notifications the feed keeps.
    public static let capacity = 100

    /// Everything that changes the bell.
    public enum Input: Hashable, Sendable {
        /// A new notification (live or resumed), stamped with the user's event sequence number if known.
        case received(BellItem, sequence: Int64?)
        /// The user read one notification here (B3). The host also tells the server.
        case markRead(String)
        /// The user read them all here (B3). The host also tells the server.
        case markAllRead
        /// The server says these were read (on any device), at `sequence`.
        case serverRead([String], sequence: Int64)
        /// The server says all were read, at `sequence`.
        case serverReadAll(sequence: Int64)
        /// A full reload of the feed at `sequence` (U7-style drift repair).
        case reload([BellItem], sequence: Int64)
    }

    /// What the host must show after an input.
    public enum Event: Hashable, Sendable {
        /// The feed or its badge changed; `pulse` is true when the unread count rose (B2).
        case changed(unread: Int, badgeText: String, pulse: Bool)
        /// An input older than the state already applied was ignored.
        case ignoredStale(sequence: Int64)
    }

    /// The kept notifications, newest first (B4).
    public private(set) var items: [BellItem] = []
    /// The latest server sequence number applied.
    public private(set) var sequence: Int64?

    /// Makes an empty bell.
    public init() {}

    /// B2: unread notifications among the kept items.
    public var unread: Int { items.reduce(0) { $0 + ($1.read ? 0 : 1) } }

    /// B2: the bell badge text (U5 rule).
    public var badgeText: String { BadgeText.text(for: unread) }

    /// Applies one input and returns the events.
    public mutating func handle(_ input: Input) -> [Event] {
        let before = items
        let unreadBefore = unread
        switch input {
        case .received(let item, let sequence):
            if let sequence {
                guard accept(sequence) else { return [.ignoredStale(sequence: sequence)] }
            }
            insert(item)
        case .markRead(let id):
            markRead { $0.id == id }
        case .markAllRead:
            markRead { _ in true }
        case .serverRead(let ids, let sequence):
            guard accept(sequence) else { return [.ignoredStale(sequence: sequence)] }
            let ids = Set(ids)
            markRead { ids.contains($0.id) }
        case .serverReadAll(let sequence):
            guard accept(sequence) else { return [.ignoredStale(sequence: sequence)] }
            markRead { _ in true }
        case .reload(let newItems, let sequence):
            if let applied = self.sequence, sequence < applied { return [.ignoredStale(sequence: sequence)] }
            self.sequence = sequence
            items = []
            for item in newItems { insert(item) }
        }
        guard items != before else { return [] }
        return [.changed(unread: unread, badgeText: badgeText, pulse: unread > unreadBefore)]
    }

    /// U7 for the bell: a stamped input applies only when newer than everything applied so far.
    private mutating func accept(_ sequence: Int64) -> Bool {
        if let applied = self.sequence, sequence <= applied { return false }
        self.sequence = sequence
        return true
    }

    /// B4: inserts newest first (a tie goes before the older arrival) and keeps the 100 newest.
    private mutating func insert(_ item: BellItem) {
        guard !items.contains(where: { $0.id == item.id }) else { return }
        let index = items.firstIndex(where: { $0.createdAt <= item.createdAt }) ?? items.endIndex
        items.insert(item, at: index)
        if items.count > Self.capacity { items.removeLast(items.count - Self.capacity) }
    }

    private mutating func markRead(where matches: (BellItem) -> Bool) {
        for index in items.indices where !items[index].read && matches(items[index]) {
            items[index].read = true
        }
    }
}
