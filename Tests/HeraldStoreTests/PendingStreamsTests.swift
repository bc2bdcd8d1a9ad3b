@testable import HeraldStorePostgres
import HeraldTestSupport
import Testing

/// The PostgreSQL store's in-memory streams of one transaction (R3): appends journaled once per body, undone by
/// savepoints, written early by reads. Checked against a model that simply copies its whole state at every savepoint.
@Suite("PostgreSQL: a transaction's pending streams against a copy-on-savepoint model")
struct PendingStreamsTests {
    /// The obvious implementation: every savepoint keeps a full copy.
    struct Model {
        struct State {
            var heads: [String: Int64] = [:]
            var runs: [String: [PostgresStreamRun]] = [:]
            var moved: [String] = []
            var stored: [String: Int] = [:]
            var unwritten: Set<String> = []
        }
        var state = State()
        var loaded: [String: Int64] = [:]
        var savepoints: [State] = []

        mutating func load(_ user: String, head: Int64) {
            loaded[user] = head
            state.heads[user] = head
        }

        mutating func append(_ users: [String], body: Int64, at now: Int64) -> [Int64] {
            users.map { user in
                let seq = state.heads[user, default: 0] + 1
                state.heads[user] = seq
                state.unwritten.insert(user)
                var runs = state.runs[user] ?? []
                if let last = runs.last, last.continues(seq: seq, body: body) {
                    runs[runs.count - 1].count += 1
                    runs[runs.count - 1].createdAt = max(last.createdAt, now)
                } else {
                    if runs.isEmpty { state.moved.append(user) }
                    runs.append(PostgresStreamRun(firstSeq: seq, firstBody: body, count: 1, createdAt: now))
                }
                state.runs[user] = runs
                return seq
            }
        }

        mutating func rollback() {
            guard let saved = savepoints.popLast() else { return }
            state = saved
            // Loading is never undone: a stream loaded inside the savepoint is back at its loaded head.
            for (user, head) in loaded where state.heads[user] == nil { state.heads[user] = head }
        }

        mutating func markWritten(streams: Bool) {
            guard streams else { return }
            for user in state.unwritten { state.stored[user] = state.runs[user]?.count ?? 0 }
            state.unwritten.removeAll()
        }
    }

    @Test("R3, property: random appends, savepoints, rollbacks and early writes leave the heads, runs, moved heads and stored runs the model has", arguments: 1...40)
    func matchesModel(seed: UInt64) {
        var random = SeededGenerator(seed: seed)
        var pending = PendingStreams()
        var model = Model()
        var marks: [Int] = []
        let everyone = (0..<6).map { "u\($0)" }
        var body: Int64 = 100
        for step in 0..<300 {
            switch random.next() % 10 {
            case 0, 1:
                let user = everyone[Int(random.next() % 6)]
                guard pending.head(of: user) == nil else { break }
                let head = Int64(random.next() % 4)
                pending.load(user, head: head)
                model.load(user, head: head)
            case 2, 3, 4:
                let users = everyone.filter { pending.head(of: $0) != nil && random.next() % 2 == 0 }
                guard !users.isEmpty else { break }
                // Bodies mostly follow each other (runs grow); now and then one is skipped (a new run begins).
                body += random.next() % 5 == 0 ? 2 : 1
                var seqs: [Int64] = []
                pending.append(users, body: body, at: Int64(step), seqs: &seqs)
                #expect(seqs == model.append(users, body: body, at: Int64(step)))
            case 5:
                marks.append(pending.mark)
                model.savepoints.append(model.state)
            case 6, 7:
                guard let mark = marks.popLast() else { break }
                pending.rollback(to: mark)
                model.rollback()
            case 8:
                // A savepoint released: its changes stay.
                guard marks.popLast() != nil else { break }
                model.savepoints.removeLast()
            default:
                let streams = random.next() % 3 != 0
                pending.markWritten(streams: streams)
                model.markWritten(streams: streams)
            }
            let state = model.state
            for user in everyone {
                #expect(pending.head(of: user) == state.heads[user], "seed \(seed) step \(step): head of \(user)")
                // A run shrunk by a rollback keeps its newer creation time: pruning keeps it a little longer, never
                // takes it early.
                let runs = pending.streams[user]?.runs ?? [], expected = state.runs[user] ?? []
                #expect(runs.map(\.firstSeq) == expected.map(\.firstSeq), "seed \(seed) step \(step): runs of \(user)")
                #expect(runs.map(\.firstBody) == expected.map(\.firstBody), "seed \(seed) step \(step): runs of \(user)")
                #expect(runs.map(\.count) == expected.map(\.count), "seed \(seed) step \(step): runs of \(user)")
                #expect(zip(runs, expected).allSatisfy { $0.createdAt >= $1.createdAt }, "seed \(seed) step \(step): runs of \(user)")
                #expect((pending.streams[user]?.storedRuns ?? 0) == (state.stored[user] ?? 0), "seed \(seed) step \(step): stored runs of \(user)")
            }
            #expect(pending.movedHeads == state.moved, "seed \(seed) step \(step): moved heads")
            // Everything the model has not written is written next; naming a user whose runs are back as written is
            // allowed (rewriting them changes nothing).
            #expect(state.unwritten.isSubset(of: Set(pending.unwrittenUsers)), "seed \(seed) step \(step): unwritten users")
            #expect(Set(pending.unwrittenUsers).count == pending.unwrittenUsers.count, "seed \(seed) step \(step): each unwritten user once")
        }
    }
}
