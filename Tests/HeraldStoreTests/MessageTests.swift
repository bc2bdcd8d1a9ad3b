import HeraldStore
import Testing

@Suite("Messages")
struct MessageTests {
    @Test("insertMessage stores text and image messages with m-ids and storage order", arguments: StoreBackend.allCases)
    func insert(_ backend: StoreBackend) throws {
        let (_, store) = try storeWithUsers(backend)
        let (c, _) = try store.findOrCreateDirect(between: "alice", and: "bob", now: 1)
        let (text, duplicate) = try store.insertMessage(
            conversation: c.id, sender: "alice", clientMessageId: "k1", kind: .text, text: "hi", imageURL: nil, now: 10)
        #expect(!duplicate)
        #expect(text.id == "m1")
        #expect(text.conversation == c.id)
        let (image, _) = try store.insertMessage(
            conversation: c.id, sender: "bob", clientMessageId: "k1", kind: .image, text: nil, imageURL: "https://x/i.png", now: 11)
        #expect(image.kind == .image && image.imageURL == "https://x/i.png" && image.text == nil)
        #expect(image.order > text.order)
        #expect(try store.message(id: text.id) == text)
        #expect(try store.message(id: image.id) == image)
        #expect(try store.conversation(id: c.id)?.lastActivity == 11)
        #expect(try store.message(id: "m3") == nil)
        #expect(try store.message(id: "m01") == nil)
    }

    @Test("R4: a retry with the same client message id returns the original and stores nothing", arguments: StoreBackend.allCases)
    func idempotentSend(_ backend: StoreBackend) throws {
        let (_, store) = try storeWithUsers(backend)
        let (c, _) = try store.findOrCreateDirect(between: "alice", and: "bob", now: 1)
        let (original, firstDuplicate) = try store.insertMessage(
            conversation: c.id, sender: "alice", clientMessageId: "retry-me", kind: .text, text: "once", imageURL: nil, now: 10)
        let (retry, duplicate) = try store.insertMessage(
            conversation: c.id, sender: "alice", clientMessageId: "retry-me", kind: .text, text: "once again", imageURL: nil, now: 99)
        #expect(!firstDuplicate)
        #expect(duplicate)
        #expect(retry == original)
        #expect(try store.history(conversation: c.id, before: nil, limit: 10) == [original])
        #expect(try store.unreadCount(user: "bob", conversation: c.id) == 1)
        #expect(try store.conversation(id: c.id)?.lastActivity == 10)
    }

    @Test("R4: a retry returns the original wherever it is sent: another conversation, one that does not exist, one without the sender", arguments: StoreBackend.allCases)
    func retryFindsOriginalAnywhere(_ backend: StoreBackend) throws {
        let (_, store) = try storeWithUsers(backend)
        let (ab, _) = try store.findOrCreateDirect(between: "alice", and: "bob", now: 1)
        let (ac, _) = try store.findOrCreateDirect(between: "alice", and: "carol", now: 1)
        let (bc, _) = try store.findOrCreateDirect(between: "bob", and: "carol", now: 1)
        let (original, _) = try store.insertMessage(
            conversation: ab.id, sender: "alice", clientMessageId: "once", kind: .text, text: "hi", imageURL: nil, now: 10)
        for conversation in [ac.id, "c4242", bc.id] {
            let (retry, duplicate) = try store.insertMessage(
                conversation: conversation, sender: "alice", clientMessageId: "once", kind: .text, text: "again", imageURL: nil, now: 20)
            #expect(duplicate, "retry to \(conversation)")
            #expect(retry == original, "retry to \(conversation)")
        }
        #expect(try store.history(conversation: ac.id, before: nil, limit: 10).isEmpty)
        #expect(try store.unreadCount(user: "bob", conversation: ab.id) == 1)
        #expect(try store.unreadCount(user: "carol", conversation: ac.id) == 0)
    }

    @Test("R2: history is storage order, newest first, paged by an older-than cursor", arguments: StoreBackend.allCases)
    func storageOrder(_ backend: StoreBackend) throws {
        let (_, store) = try storeWithUsers(backend)
        let (ab, _) = try store.findOrCreateDirect(between: "alice", and: "bob", now: 1)
        let (ac, _) = try store.findOrCreateDirect(between: "alice", and: "carol", now: 1)
        var sent: [MessageRecord] = []
        // Interleave conversations and give later messages earlier clocks: order is storage order, not time.
        for index in 0..<12 {
            let conversation = index.isMultiple(of: 3) ? ac.id : ab.id
            sent.append(try store.insertMessage(
                conversation: conversation, sender: index.isMultiple(of: 2) ? "alice" : (conversation == ab.id ? "bob" : "carol"),
                clientMessageId: "k\(index)", kind: .text, text: "\(index)", imageURL: nil, now: Int64(1_000 - index)).message)
        }
        let expected = Array(sent.filter { $0.conversation == ab.id }.reversed())
        let firstPage = try store.history(conversation: ab.id, before: nil, limit: 5)
        #expect(firstPage == Array(expected.prefix(5)))
        let secondPage = try store.history(conversation: ab.id, before: firstPage.last?.id, limit: 5)
        #expect(secondPage == Array(expected.dropFirst(5).prefix(5)))
        #expect(zip(expected, expected.dropFirst()).allSatisfy { $0.order > $1.order })
        #expect(throws: StoreError.self) { try store.history(conversation: ab.id, before: "bogus", limit: 5) }
    }

    @Test("R5: a non-participant cannot write; an unknown conversation is notFound", arguments: StoreBackend.allCases)
    func writeAccess(_ backend: StoreBackend) throws {
        let (_, store) = try storeWithUsers(backend)
        let (c, _) = try store.findOrCreateDirect(between: "alice", and: "bob", now: 1)
        do {
            _ = try store.insertMessage(conversation: c.id, sender: "carol", clientMessageId: "x", kind: .text, text: "hi", imageURL: nil, now: 2)
            Issue.record("carol wrote into a conversation she is not in")
        } catch let error as StoreError {
            #expect(error.kind == .constraint)
        }
        do {
            _ = try store.insertMessage(conversation: "c42", sender: "alice", clientMessageId: "y", kind: .text, text: "hi", imageURL: nil, now: 2)
            Issue.record("wrote into a missing conversation")
        } catch let error as StoreError {
            #expect(error.kind == .notFound)
        }
        #expect(try store.history(conversation: c.id, before: nil, limit: 10).isEmpty)
    }
}
