/// E2: what other people see of a user: online, away or offline (with the time they were last seen).
public enum PresenceStatus: String, Codable, Sendable, CaseIterable {
    /// At least one connected device is in the foreground.
    case online
    /// Connected, but every connected device is in the background.
    case away
    /// No device is connected.
    case offline

    /// E2 from the foreground flags of a user's connected devices (empty: none is connected).
    public static func of<Flags: Sequence<Bool>>(foregroundDevices flags: Flags) -> PresenceStatus {
        var connected = false
        for foreground in flags {
            if foreground { return .online }
            connected = true
        }
        return connected ? .away : .offline
    }
}

/// One user's presence as it is announced: the status, and for `offline` when they were last seen (ms since the
/// epoch; nil when nobody here saw them since the server started).
public struct PresenceState: Equatable, Sendable {
    public var status: PresenceStatus
    public var lastSeen: Int64?

    public init(status: PresenceStatus, lastSeen: Int64? = nil) {
        self.status = status
        self.lastSeen = status == .offline ? lastSeen : nil
    }
}

/// E2's coalescing: a user's presence changes reach others within 2 s, at most one update per user every 2 s.
///
/// The host reports every change of a user's computed state (``note(_:_:now:)``); the coalescer answers which
/// announcements go out now and holds the rest until their user's 2 s have passed (``tick(now:)``), announcing only the
/// newest state, and nothing at all when the user ended where the last announcement left them (online→away→online).
public struct PresenceCoalescer<User: Hashable & Sendable>: Sendable {
    /// The least time between two announcements of one user.
    public let spacing: Milliseconds
    /// What others were last told, and when.
    private var announced: [User: (state: PresenceState, at: Instant)] = [:]
    /// States waiting for their user's spacing to pass.
    private var held: [User: PresenceState] = [:]
    /// When the earliest held state may go out.
    public private(set) var nextDeadline: Instant?

    public init(spacing: Milliseconds = .seconds(2)) {
        self.spacing = spacing
    }

    /// What was last announced for `user`, if anything.
    public func lastAnnounced(_ user: User) -> PresenceState? { announced[user]?.state }

    /// `user`'s state is now `state`: returns it when it is to be announced at once.
    public mutating func note(_ user: User, _ state: PresenceState, now: Instant) -> PresenceState? {
        let last = announced[user]
        if let last, last.state == state {
            held[user] = nil
            return nil
        }
        if let last, now < last.at + spacing {
            held[user] = state
            let due = last.at + spacing
            nextDeadline = nextDeadline.map { Swift.min($0, due) } ?? due
            return nil
        }
        held[user] = nil
        announced[user] = (state, now)
        return state
    }

    /// Drops what is known of `user`: their next state is announced at once, as if they had never been announced.
    public mutating func forget(_ user: User) {
        announced[user] = nil
        held[user] = nil
    }

    /// The held states whose spacing has passed, to announce now.
    public mutating func tick(now: Instant) -> [(user: User, state: PresenceState)] {
        guard let deadline = nextDeadline, deadline <= now else { return [] }
        var out: [(user: User, state: PresenceState)] = []
        var next: Instant?
        for (user, state) in held {
            guard let last = announced[user] else { continue }
            let due = last.at + spacing
            if due <= now {
                held[user] = nil
                if last.state != state {
                    announced[user] = (state, now)
                    out.append((user, state))
                }
            } else {
                next = next.map { Swift.min($0, due) } ?? due
            }
        }
        nextDeadline = next
        return out
    }
}
