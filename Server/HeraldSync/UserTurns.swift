/// Fair turns on the sync thread within one batch: each user's requests may take `budget` microseconds of it; once a
/// user has spent that, the rest of their inputs in the batch wait for the next one (``SyncCore`` carries them over,
/// in order). A user's first input in a batch always runs, so everyone makes progress; a user who floods the thread
/// with expensive reads (`conversations` in hundreds of groups from many connections) gets one budget's worth per
/// batch, and everybody else's requests in the same batch are answered after at most that much of theirs.
///
/// Pure bookkeeping: the caller measures with its clock and reports what each input cost.
struct UserTurns {
    /// Microseconds per user per batch; 0 or less: no limit (first come, first served).
    let budget: Int
    private var spent: [String: Int] = [:]

    init(budget: Int) {
        self.budget = budget
    }

    /// Whether turns are kept at all.
    var isOn: Bool { budget > 0 }

    /// Whether `user` has used up their turn in this batch: their later inputs wait.
    func isSpent(_ user: String) -> Bool {
        isOn && spent[user, default: 0] >= budget
    }

    /// `user`'s input took `microseconds` of the thread (a clock that went backwards counts as nothing).
    mutating func spend(_ microseconds: Int, by user: String) {
        guard isOn else { return }
        spent[user, default: 0] &+= max(microseconds, 0)
    }
}
