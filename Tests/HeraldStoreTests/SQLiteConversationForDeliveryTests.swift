import Foundation
@testable import HeraldStore
import Testing

/// A send reads its conversation from memory (SQLiteStore.conversationForDelivery): it must name exactly the
/// participants the table holds, so a fan-out never reaches someone who left or misses a member.
@Suite("SQLite: the conversation a send fans out to is the table's, kept in memory")
struct SQLiteConversationForDeliveryTests {
    struct Refused: Error {}

    @Test("A member who left is no longer a recipient, and the kept record matches a fresh read but for its activity")
    func leaveIsSeen() throws {
        let (_, store) = try sqliteStoreWithUsers()
        let group = try store.createGroup(title: "g", creator: "alice", members: ["bob", "carol"], now: 1)
        #expect(try store.conversationForDelivery(id: group.id)?.participants == ["alice", "bob", "carol"])
        _ = try store.insertMessage(conversation: group.id, sender: "alice", clientMessageId: "m1", kind: .text, text: "a", imageURL: nil, now: 5)
        var kept = try #require(try store.conversationForDelivery(id: group.id))
        let read = try #require(try store.conversation(id: group.id))
        #expect(read.lastActivity == 5)
        kept.lastActivity = read.lastActivity
        #expect(kept == read)
        try store.removeParticipant(user: "bob", conversation: group.id)
        #expect(try store.conversationForDelivery(id: group.id)?.participants == ["alice", "carol"])
        #expect(try store.conversationForDelivery(id: "c999") == nil)
        #expect(try store.conversationForDelivery(id: "x1") == nil)
    }

    @Test("A conversation created in a rolled-back transaction is forgotten: its id, handed out again, reads as the new one")
    func rolledBackCreation() throws {
        let (_, store) = try sqliteStoreWithUsers()
        var first: ConversationRecord?
        #expect(throws: Refused.self) {
            try store.transaction {
                first = try store.createGroup(title: "gone", creator: "alice", members: ["bob"], now: 1)
                #expect(try store.conversationForDelivery(id: first?.id ?? "")?.title == "gone")
                throw Refused()
            }
        }
        let second = try store.createGroup(title: "kept", creator: "alice", members: ["carol"], now: 2)
        let delivered = try #require(try store.conversationForDelivery(id: second.id))
        #expect(delivered.title == "kept" && delivered.participants == ["alice", "carol"])
        if let first, first.id == second.id { #expect(delivered.title != first.title) }
    }
}
