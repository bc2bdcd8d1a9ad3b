/// E1 on a receiving device: who is typing in which conversation, ending at the sender's stop, a message from the
/// sender, or ``expiry`` of silence (the server ends it too; this covers a stop that never arrives).
public struct TypingIndicators: Sendable {
    /// How long a start (or refresh) lasts without another.
    public let expiry: Milliseconds
    /// conversation → user → when their indicator ends; users in the order they started.
    private var typing: [String: [(user: String, until: Instant)]] = [:]

    public init(expiry: Milliseconds = .seconds(6)) {
        self.expiry = expiry
    }

    /// The users typing in `conversation`, in the order they started.
    public func users(in conversation: String) -> [String] { typing[conversation]?.map(\.user) ?? [] }

    /// The conversations where someone types.
    public var conversations: [String] { Array(typing.keys) }

    /// The earliest instant an indicator ends by silence.
    public var nextDeadline: Instant? { typing.values.flatMap { $0.map(\.until) }.min() }

    /// `user` started (or refreshed) typing in `conversation`: true when the list of typists changed.
    public mutating func start(_ user: String, in conversation: String, now: Instant) -> Bool {
        let until = now + expiry
        if let index = typing[conversation]?.firstIndex(where: { $0.user == user }) {
            typing[conversation]?[index].until = until
            return false
        }
        typing[conversation, default: []].append((user, until))
        return true
    }

    /// `user` stopped typing in `conversation` (their stop, or a message from them): true when they were typing.
    public mutating func stop(_ user: String, in conversation: String) -> Bool {
        guard let index = typing[conversation]?.firstIndex(where: { $0.user == user }) else { return false }
        typing[conversation]?.remove(at: index)
        if typing[conversation]?.isEmpty == true { typing[conversation] = nil }
        return true
    }

    /// Everyone stops (the connection was lost: no stop can arrive for what was shown).
    public mutating func clear() -> [String] {
        defer { typing = [:] }
        return Array(typing.keys)
    }

    /// Ends the indicators whose silence reached ``expiry``; returns the conversations whose typists changed.
    public mutating func tick(now: Instant) -> [String] {
        var changed: [String] = []
        for (conversation, entries) in typing {
            let kept = entries.filter { $0.until > now }
            guard kept.count != entries.count else { continue }
            typing[conversation] = kept.isEmpty ? nil : kept
            changed.append(conversation)
        }
        return changed.sorted()
    }
}

/// E1 on the typing device: when to report a start (the first keystroke, then refreshed no more than once every
/// ``refresh``) and a stop (on send, on leaving the thread, or after ``idle`` without a keystroke).
public struct TypingReporter: Sendable {
    public enum Report: Equatable, Sendable {
        case start(String)
        case stop(String)
    }

    public let refresh: Milliseconds
    public let idle: Milliseconds
    /// The conversation a start was reported for, when it was reported, and the last keystroke.
    private var current: (conversation: String, reportedAt: Instant, lastKey: Instant)?

    public init(refresh: Milliseconds = .seconds(3), idle: Milliseconds = .seconds(5)) {
        self.refresh = refresh
        self.idle = idle
    }

    /// The conversation a start is standing in, if any.
    public var conversation: String? { current?.conversation }

    /// Whether a start for `conversation` is standing.
    public func isReporting(in conversation: String) -> Bool { current?.conversation == conversation }

    /// When ``tick(now:)`` would report a stop for silence.
    public var nextDeadline: Instant? { current.map { $0.lastKey + idle } }

    /// The person typed in `conversation`'s composer.
    public mutating func keystroke(in conversation: String, now: Instant) -> [Report] {
        var reports: [Report] = []
        if let current, current.conversation != conversation { reports.append(.stop(current.conversation)) }
        if let current, current.conversation == conversation, now < current.reportedAt + refresh {
            self.current?.lastKey = now
            return reports
        }
        current = (conversation, now, now)
        return reports + [.start(conversation)]
    }

    /// The composer was emptied, its message sent, or the thread left: a stop if a start is standing.
    public mutating func stop() -> [Report] {
        guard let current else { return [] }
        self.current = nil
        return [.stop(current.conversation)]
    }

    /// A stop once ``idle`` passed without a keystroke.
    public mutating func tick(now: Instant) -> [Report] {
        guard let current, now >= current.lastKey + idle else { return [] }
        return stop()
    }
}
