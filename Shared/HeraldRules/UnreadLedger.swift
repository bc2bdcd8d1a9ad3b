/// U1–U5, U7: one user's unread counts per conversation and the Messages badge, as one device sees them.
///
/// The server is authoritative (U4); the ledger applies its stamped updates, never goes back to an
/// older state (U7), and marks reads locally the moment messages become visible (U2, U3), so the badge
/// drops at once and the ack goes out.
///
/// ```swift
/// var ledger = UnreadLedger()
/// _ = ledger.handle(.arrived(ArrivedMessage(conversation: "c1", message: "m1", isFromMe: false, sequence: 4)))
/// let events = ledger.handle(.visible(conversation: "c1", messages: ["m1"]))
/// // [.acknowledge(conversation: "c1", messages: ["m1"]), .unreadChanged(conversation: "c1", unread: 0), .badgeChanged(...)]
/// ```
public struct UnreadLedger: Sendable {
    /// Everything that changes unread state.
    public enum Input: Hashable, Sendable {
        /// A message reached this device (live or resumed). Only messages from others that are not read count (U1).
        case arrived(ArrivedMessage)
        /// These messages of `conversation` became visible on this device (U2): exactly they become read (U3).
        case visible(conversation: String, messages: [String])
        /// The server's state of one conversation at a sequence number (U4, U7); stale ones are ignored.
        case serverUpdate(UnreadUpdate)
        /// A full reload (U7 drift repair): these conversations at `sequence`, all others at zero.
        case reload([UnreadUpdate], sequence: Int64)
        /// N4: the server's mark of one conversation at a sequence number (nil: a snapshot's, applied as it is).
        case marked(conversation: String, marked: Bool, sequence: Int64?)
    }

    /// What the host must do or show after an input.
    public enum Event: Hashable, Sendable {
        /// Send a read ack for these messages to the server (U2). Already-read messages are left out.
        case acknowledge(conversation: String, messages: [String])
        /// unread(c) changed.
        case unreadChanged(conversation: String, unread: Int)
        /// The Messages badge changed (U1 sum, U5 text).
        case badgeChanged(count: Int, text: String)
        /// A server update or arrival older than the state already applied was ignored (U7).
        case ignoredStale(conversation: String, sequence: Int64)
    }

    /// unread(c) for every conversation with a known count (zeros included once seen).
    public private(set) var unreadCounts: [String: Int] = [:]
    /// Message ids known to be unread, per conversation.
    private var unreadMessages: [String: Set<String>] = [:]
    /// Message ids known not to be unread (own, arrived read, read here or elsewhere), per conversation.
    private var settledMessages: [String: Set<String>] = [:]
    /// Reads done here that the server has not confirmed yet; subtracted from the server's counts until it does.
    private var pendingReads: [String: Set<String>] = [:]
    /// The latest sequence number applied per conversation (U7).
    public private(set) var sequences: [String: Int64] = [:]
    /// N4: conversations marked unread, and the sequence of each mark's latest change.
    public private(set) var markedUnread: Set<String> = []
    private var markSequences: [String: Int64] = [:]

    /// Makes an empty ledger.
    public init() {}

    /// unread(c); 0 when unknown.
    public func unread(in conversation: String) -> Int { unreadCounts[conversation] ?? 0 }

    /// U1: the Messages badge, the sum of unread(c); N4: a conversation marked unread counts at least one.
    public var badge: Int { AlertRules.messagesBadge(unread: unreadCounts, markedUnread: markedUnread) }

    /// U5: the badge as text.
    public var badgeText: String { BadgeText.text(for: badge) }

    /// Whether `message` is known to be unread.
    public func isUnread(_ message: String, in conversation: String) -> Bool {
        unreadMessages[conversation]?.contains(message) ?? false
    }

    /// Applies one input and returns the events, in order.
    public mutating func handle(_ input: Input) -> [Event] {
        let before = unreadCounts
        let badgeBefore = badge
        var events: [Event]
        switch input {
        case .arrived(let message): events = arrive(message)
        case .visible(let conversation, let messages): events = markVisible(messages, in: conversation)
        case .serverUpdate(let update): events = apply(update, allowEqualSequence: false)
        case .reload(let updates, let sequence): events = reload(updates, sequence: sequence)
        case .marked(let conversation, let marked, let sequence): events = mark(conversation, marked, sequence: sequence)
        }
        let conversations = Set(before.keys).union(unreadCounts.keys).sorted()
        for conversation in conversations where before[conversation] ?? 0 != unread(in: conversation) {
            events.append(.unreadChanged(conversation: conversation, unread: unread(in: conversation)))
        }
        if badge != badgeBefore { events.append(.badgeChanged(count: badge, text: badgeText)) }
        return events
    }

    // MARK: - Inputs

    private mutating func arrive(_ message: ArrivedMessage) -> [Event] {
        let conversation = message.conversation
        if let sequence = message.sequence {
            if let applied = sequences[conversation], sequence <= applied {
                // Already reflected in a newer count (e.g. a reload that included it): counting it again would drift.
                return [.ignoredStale(conversation: conversation, sequence: sequence)]
            }
            sequences[conversation] = sequence
        }
        if unreadCounts[conversation] == nil { unreadCounts[conversation] = 0 }
        let id = message.message
        if settledMessages[conversation, default: []].contains(id) || unreadMessages[conversation, default: []].contains(id) {
            return []
        }
        if message.isFromMe || message.isRead {
            // S7 / U1: never unread for its sender, nor when it arrives already read.
            settledMessages[conversation, default: []].insert(id)
            return []
        }
        unreadMessages[conversation, default: []].insert(id)
        unreadCounts[conversation, default: 0] += 1
        return []
    }

    private mutating func markVisible(_ messages: [String], in conversation: String) -> [Event] {
        // N4: a visible message ends a mark; the server learns of it from the ack, so every visible id goes in it.
        if !messages.isEmpty, markedUnread.remove(conversation) != nil {
            for id in messages where unreadMessages[conversation]?.remove(id) != nil {
                pendingReads[conversation, default: []].insert(id)
                unreadCounts[conversation] = Swift.max(0, unread(in: conversation) - 1)
            }
            settledMessages[conversation, default: []].formUnion(messages)
            return [.acknowledge(conversation: conversation, messages: messages)]
        }
        var toAcknowledge: [String] = []
        var readHere = 0
        for id in messages where !settledMessages[conversation, default: []].contains(id) {
            // Unknown ids are acked too: the server may count them although this device never saw them arrive.
            settledMessages[conversation, default: []].insert(id)
            toAcknowledge.append(id)
            if unreadMessages[conversation]?.remove(id) != nil {
                pendingReads[conversation, default: []].insert(id)
                readHere += 1
            }
        }
        if readHere > 0 {
            unreadCounts[conversation] = Swift.max(0, unread(in: conversation) - readHere)
        }
        return toAcknowledge.isEmpty ? [] : [.acknowledge(conversation: conversation, messages: toAcknowledge)]
    }

    private mutating func apply(_ update: UnreadUpdate, allowEqualSequence: Bool) -> [Event] {
        let conversation = update.conversation
        if let applied = sequences[conversation], update.sequence < applied || (update.sequence == applied && !allowEqualSequence) {
            return [.ignoredStale(conversation: conversation, sequence: update.sequence)]
        }
        sequences[conversation] = update.sequence
        for id in update.readMessages {
            unreadMessages[conversation]?.remove(id)
            pendingReads[conversation]?.remove(id)
            settledMessages[conversation, default: []].insert(id)
        }
        let pending = pendingReads[conversation] ?? []
        if let known = update.unreadMessages {
            unreadMessages[conversation] = Set(known).subtracting(pending)
            settledMessages[conversation, default: []].subtract(unreadMessages[conversation] ?? [])
        }
        // Reads made here and not yet confirmed stay read: the server's count cannot include our ack yet.
        unreadCounts[conversation] = Swift.max(0, update.unread - pending.count)
        return []
    }

    /// N4: a mark set or cleared on any device; an older change than the one applied is ignored (U7).
    private mutating func mark(_ conversation: String, _ marked: Bool, sequence: Int64?) -> [Event] {
        if let sequence {
            if let applied = markSequences[conversation], sequence <= applied { return [.ignoredStale(conversation: conversation, sequence: sequence)] }
            markSequences[conversation] = sequence
        }
        if marked { markedUnread.insert(conversation) } else { markedUnread.remove(conversation) }
        return []
    }

    private mutating func reload(_ updates: [UnreadUpdate], sequence: Int64) -> [Event] {
        // A reload replaces everything: it reflects every ack the server had processed by `sequence`.
        var events: [Event] = []
        let listed = Set(updates.map(\.conversation))
        for conversation in unreadCounts.keys where !listed.contains(conversation) {
            if let applied = sequences[conversation], applied > sequence { continue }
            unreadCounts[conversation] = 0
            unreadMessages[conversation] = []
            pendingReads[conversation] = []
            sequences[conversation] = sequence
        }
        for update in updates {
            if let applied = sequences[update.conversation], applied > update.sequence {
                events.append(.ignoredStale(conversation: update.conversation, sequence: update.sequence))
                continue
            }
            pendingReads[update.conversation] = []
            events += apply(update, allowEqualSequence: true)
        }
        return events
    }
}

/// A message as it reaches a device, for `UnreadLedger`.
public struct ArrivedMessage: Hashable, Sendable {
    /// Its conversation.
    public var conversation: String
    /// Its id.
    public var message: String
    /// Whether this user sent it (S7: never unread).
    public var isFromMe: Bool
    /// Whether it is already read (e.g. read on another device before this one got it).
    public var isRead: Bool
    /// The user's event sequence number that delivered it, if known (U7).
    public var sequence: Int64?

    /// Describes an arriving message.
    public init(conversation: String, message: String, isFromMe: Bool, isRead: Bool = false, sequence: Int64? = nil) {
        self.conversation = conversation
        self.message = message
        self.isFromMe = isFromMe
        self.isRead = isRead
        self.sequence = sequence
    }
}

/// The server's unread state of one conversation at one point of the user's event stream (U4, U7).
public struct UnreadUpdate: Hashable, Sendable {
    /// The conversation.
    public var conversation: String
    /// unread(c) after this event.
    public var unread: Int
    /// Messages this event marked read (from any of the user's devices).
    public var readMessages: [String]
    /// When the server lists them: every unread message id of c (replaces what the device knew).
    public var unreadMessages: [String]?
    /// The user's event sequence number this state reflects.
    public var sequence: Int64

    /// Makes an update.
    public init(conversation: String, unread: Int, readMessages: [String] = [], unreadMessages: [String]? = nil, sequence: Int64) {
        self.conversation = conversation
        self.unread = unread
        self.readMessages = readMessages
        self.unreadMessages = unreadMessages
        self.sequence = sequence
    }
}
