import Foundation
import HeraldStore
@testable import HeraldStorePostgres
import HeraldTestSupport
import Testing

/// Opening conversations on PostgreSQL: the sync thread waits on every round trip, so a DM or a group is one statement,
/// and two nodes opening the same DM at the same moment still end up with one conversation.
@Suite("PostgreSQL: opening conversations", .enabled(if: PostgresCluster.binariesAvailable, PostgresCluster.skipReason))
struct PostgresConversationOpeningTests {
    @Test("Inside a batch, opening a DM (new or existing) and creating a group of 40 cost one round trip each (statements prepared)")
    func oneRoundTripEach() throws {
        let (url, store) = try postgresStoreWithUsers()
        let members = (0..<40).map { "member\($0)" }
        for member in members { try store.upsertUser(id: member, name: member) }
        func roundTrips<T>(_ body: () throws -> T) throws -> (Int, T) {
            let before = store.connection.roundTrips
            let result = try body()
            return (store.connection.roundTrips - before, result)
        }
        // A statement's first use on a connection also prepares it (one more round trip, once per connection).
        _ = try store.findOrCreateDirect(between: "bob", and: "carol", now: 1)
        _ = try store.createGroup(title: "Warm", creator: "carol", members: ["bob"], now: 1)
        let first = try store.transaction {
            let (trips, opened) = try roundTrips { try store.findOrCreateDirect(between: "bob", and: "alice", now: 1) }
            #expect(trips == 1 && opened.created)
            #expect(opened.conversation.participants == ["alice", "bob"])
            let (groupTrips, group) = try roundTrips { try store.createGroup(title: "Forty", creator: "alice", members: members, now: 2) }
            #expect(groupTrips == 1)
            #expect(group.participants == (members + ["alice"]).sorted())
            return opened.conversation
        }
        try store.transaction {
            let (trips, again) = try roundTrips { try store.findOrCreateDirect(between: "alice", and: "bob", now: 3) }
            #expect(trips == 1 && !again.created)
            #expect(again.conversation == first)
        }
        // What was stored is what a fresh read finds (participants rows included).
        let reader = try PostgresStore(url: url)
        #expect(try reader.conversation(id: first.id)?.participants == ["alice", "bob"])
        #expect(try reader.conversations(for: "member39").map(\.conversation.title) == ["Forty"])
    }

    @Test("Two nodes opening the same DM at once: the one that waited on the other's insert gets that conversation, not a second")
    func sameDirectOnTwoNodes() throws {
        let (url, a) = try postgresStoreWithUsers()
        let b = try PostgresStore(url: url)
        let created = try a.transaction {
            let mine = try a.findOrCreateDirect(between: "alice", and: "carol", now: 1)
            // B's insert of the same pair waits for A's commit (the unique pair's index); A commits once B is waiting.
            let other = BackgroundCall { try b.findOrCreateDirect(between: "carol", and: "alice", now: 2) }
            try waitUntil { try PostgresCluster.run("SELECT count(*) FROM pg_locks WHERE NOT granted", database: url).first?.first == "1" }
            return (mine, other)
        }
        let (mine, other) = created
        let theirs = try other.result()
        #expect(mine.created && !theirs.created)
        #expect(theirs.conversation.id == mine.conversation.id)
        #expect(try a.conversations(for: "carol").count == 1)
    }
}

/// A call running on its own thread (another node's sync thread) whose result is collected later.
private final class BackgroundCall<T: Sendable>: @unchecked Sendable {
    // @unchecked: `outcome` is written once before `done` is signalled and read only after waiting on it.
    private var outcome: Result<T, any Error>?
    private let done = DispatchSemaphore(value: 0)

    init(_ body: @escaping @Sendable () throws -> T) {
        Thread { [self] in
            outcome = Result { try body() }
            done.signal()
        }.start()
    }

    func result() throws -> T {
        guard done.wait(timeout: .now() + 30) == .success, let outcome else { throw PostgresTestTimeout() }
        return try outcome.get()
    }
}

private struct PostgresTestTimeout: Error {}

/// Polls `condition` every 10 ms for up to 10 s.
private func waitUntil(_ condition: () throws -> Bool) throws {
    let deadline = Date().addingTimeInterval(10)
    while try !condition() {
        guard Date() < deadline else { throw PostgresTestTimeout() }
        Thread.sleep(forTimeInterval: 0.01)
    }
}
