/// Fair turns on the sync thread. Within one batch each user's inputs may take `budget` microseconds; once a user has
/// spent that, the rest of their inputs wait for the next batch (``SyncCore`` carries them over, in order). A user's
/// first input in a batch always runs, so everyone makes progress.
///
/// A single input can cost far more than the budget (`conversations` in hundreds of groups). What a user spends over
/// the budget stays as a debt: while they owe, a batch that has anyone else's input to handle goes without theirs,
/// and each batch they sit out pays the debt down by the time it took. So a user who floods the thread with expensive
/// reads from many connections gets it when nobody else needs it, and otherwise about their share: another user's
/// request waits for at most the one expensive input that was running when it arrived, never for a batch full of them.
///
/// Pure bookkeeping: the caller measures with its clock and reports what each input and each batch took.
struct UserTurns {
    /// Microseconds per user per batch; 0 or less: no limit (first come, first served).
    let budget: Int
    /// The most a user can owe: a flood that ran alone for long yields to others for about this much of their work,
    /// then gets a turn again.
    var maxDebt: Int { budget &* 25 }
    /// What each user spent in the batch being handled.
    private var spent: [String: Int] = [:]
    /// What users spent over the budget in earlier batches and have not yet waited out.
    private var debts: [String: Int] = [:]

    init(budget: Int) {
        self.budget = budget
    }

    /// Whether turns are kept at all.
    var isOn: Bool { budget > 0 }

    /// Whether anyone owes time from earlier batches.
    var hasDebts: Bool { !debts.isEmpty }

    /// Whether `user` still owes time from earlier batches.
    func owes(_ user: String) -> Bool { debts[user] != nil }

    /// A batch starts (again): nobody has spent anything in it.
    mutating func beginBatch() {
        if !spent.isEmpty { spent.removeAll(keepingCapacity: true) }
    }

    /// Whether `user` has used up their turn in this batch: their later inputs wait.
    func isSpent(_ user: String) -> Bool {
        isOn && spent[user, default: 0] >= budget
    }

    /// `user`'s input took `microseconds` of the thread (a clock that went backwards counts as nothing).
    mutating func spend(_ microseconds: Int, by user: String) {
        guard isOn else { return }
        spent[user, default: 0] &+= max(microseconds, 0)
    }

    /// The batch took `microseconds`: those who ran over the budget in it owe the excess (up to ``maxDebt``); everyone
    /// else who owes, having sat it out, pays down by the batch's time.
    mutating func endBatch(took microseconds: Int) {
        guard isOn else { return }
        let elapsed = max(microseconds, 0)
        for (user, debt) in debts where spent[user] == nil {
            debts[user] = debt > elapsed ? debt - elapsed : nil
        }
        for (user, used) in spent where used > budget {
            debts[user] = min((debts[user] ?? 0) &+ (used - budget), maxDebt)
        }
    }
}
