import Synchronization

/// One user's share of the server, held by each of their sessions: the input budget their connections charge together.
final class UserShare: Sendable {
    /// The user id from the token.
    let user: String
    /// What this user's unfinished messages and unanswered large requests may hold.
    let input: InputBudget

    init(user: String, inputLimit: Int) {
        self.user = user
        self.input = InputBudget(limit: inputLimit)
    }
}

/// The users with open sessions: at most `maxConnections` each (0: unlimited), and one ``UserShare`` per user while any
/// of their sessions is open, so one person's devices share one input budget however many connections they open.
///
/// Behind one mutex, taken when a session opens and when it closes (never per frame).
final class UserShares: Sendable {
    private struct Entry {
        let share: UserShare
        var sessions: Int
    }

    /// Most sessions per user; 0: unlimited.
    let maxConnections: Int
    /// Each user's input budget in bytes; 0: unlimited.
    let inputLimit: Int
    private let entries = Mutex<[String: Entry]>([:])

    init(maxConnections: Int, inputLimit: Int) {
        self.maxConnections = max(maxConnections, 0)
        self.inputLimit = max(inputLimit, 0)
    }

    /// Counts one more session of `user` and returns the user's share, or nil (counting nothing) when the user already
    /// has ``maxConnections`` open. A share handed out must be ``release(_:)``d once, when its session closes.
    func admit(_ user: String) -> UserShare? {
        entries.withLock { entries in
            if var entry = entries[user] {
                if maxConnections > 0, entry.sessions >= maxConnections { return nil }
                entry.sessions += 1
                entries[user] = entry
                return entry.share
            }
            let share = UserShare(user: user, inputLimit: inputLimit)
            entries[user] = Entry(share: share, sessions: 1)
            return share
        }
    }

    /// One session of the share's user closed; the user's entry goes with their last session.
    func release(_ share: UserShare) {
        entries.withLock { entries in
            guard let entry = entries[share.user] else { return }
            if entry.sessions <= 1 { entries[share.user] = nil } else { entries[share.user]?.sessions = entry.sessions - 1 }
        }
    }

    /// Bytes `user`'s sessions have charged to their input budget now (0 when none is open).
    func chargedInput(of user: String) -> Int {
        entries.withLock { $0[user]?.share.input.chargedBytes ?? 0 }
    }

    /// Open sessions of `user`.
    func sessions(of user: String) -> Int {
        entries.withLock { $0[user]?.sessions ?? 0 }
    }
}
