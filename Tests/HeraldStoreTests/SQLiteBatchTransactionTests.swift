import Foundation
@testable import HeraldStore
import Testing

/// A batch runs its requests without savepoints first (SQLiteStore.batchTransaction): what commits must be exactly what
/// the same batch commits with a savepoint per request, whichever nested body throws.
@Suite("SQLite: a batch without savepoints commits what it would with them (R3, R4)")
struct SQLiteBatchTransactionTests {
    struct Refused: Error {}

    @Test("A request that throws after writing leaves nothing behind: the batch runs again with savepoints, and the other requests commit once")
    func throwAfterWriting() throws {
        let (_, store) = try sqliteStoreWithUsers()
        let conversation = try store.createGroup(title: "g", creator: "alice", members: ["bob", "carol"], now: 1).id
        var runs = 0
        try store.batchTransaction {
            runs += 1
            _ = try store.transaction {
                try store.insertMessage(
                    conversation: conversation, sender: "alice", clientMessageId: "kept-1", kind: .text, text: "a", imageURL: nil, now: 2)
            }
            // Refused after its insert and its event, as a send over its quota is.
            do {
                try store.transaction {
                    _ = try store.insertMessage(
                        conversation: conversation, sender: "bob", clientMessageId: "refused", kind: .text, text: "b", imageURL: nil, now: 3)
                    _ = try store.appendEvent(users: ["alice", "bob", "carol"], payload: [9], now: 3, toParticipantsOf: conversation)
                    throw Refused()
                }
            } catch is Refused {}
            _ = try store.transaction {
                try store.appendEvent(users: ["alice"], payload: [1], now: 4, toParticipantsOf: nil)
            }
        }
        #expect(runs == 2)
        #expect(try store.history(conversation: conversation, before: nil, limit: 10).map(\.clientMessageId) == ["kept-1"])
        #expect(try store.connection.scalar("SELECT count(*) FROM messages WHERE client_message_id = 'refused'") == 0)
        // R3: the refused event took no seq; the kept one is the first of alice's stream, in memory and on disk.
        #expect(try store.latestSeq(user: "alice") == 1)
        #expect(try store.latestSeq(user: "carol") == 0)
        #expect(try store.events(user: "alice", after: 0, limit: 10).map(\.payload) == [[1]])
        // R4: a retry of the kept message is a duplicate, the refused one stores now.
        #expect(try store.insertMessage(
            conversation: conversation, sender: "alice", clientMessageId: "kept-1", kind: .text, text: "a", imageURL: nil, now: 5).duplicate)
        #expect(try !store.insertMessage(
            conversation: conversation, sender: "bob", clientMessageId: "refused", kind: .text, text: "b", imageURL: nil, now: 5).duplicate)
    }

    @Test("A request refused before it wrote anything costs no second run, and the batch commits the rest")
    func throwBeforeWriting() throws {
        let (_, store) = try sqliteStoreWithUsers()
        let conversation = try store.createGroup(title: "g", creator: "alice", members: ["bob"], now: 1).id
        var runs = 0
        try store.batchTransaction {
            runs += 1
            do {
                try store.transaction {
                    #expect(try store.isParticipant(user: "carol", conversation: conversation) == false)
                    throw Refused()
                }
            } catch is Refused {}
            _ = try store.transaction {
                try store.insertMessage(
                    conversation: conversation, sender: "alice", clientMessageId: "m", kind: .text, text: "a", imageURL: nil, now: 2)
            }
        }
        #expect(runs == 1)
        #expect(try store.history(conversation: conversation, before: nil, limit: 10).count == 1)
    }

    @Test("A batch whose body throws commits nothing, and the next batch defers its savepoints again")
    func bodyThrows() throws {
        let (_, store) = try sqliteStoreWithUsers()
        let conversation = try store.createGroup(title: "g", creator: "alice", members: ["bob"], now: 1).id
        #expect(throws: Refused.self) {
            try store.batchTransaction {
                _ = try store.insertMessage(
                    conversation: conversation, sender: "alice", clientMessageId: "gone", kind: .text, text: "a", imageURL: nil, now: 2)
                throw Refused()
            }
        }
        #expect(try store.history(conversation: conversation, before: nil, limit: 10).isEmpty)
        var runs = 0
        try store.batchTransaction {
            runs += 1
            _ = try store.insertMessage(
                conversation: conversation, sender: "alice", clientMessageId: "kept", kind: .text, text: "a", imageURL: nil, now: 3)
        }
        #expect(runs == 1)
        #expect(try store.history(conversation: conversation, before: nil, limit: 10).map(\.clientMessageId) == ["kept"])
    }
}
