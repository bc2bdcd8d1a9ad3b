import Foundation
import HeraldStore
import HeraldStorePostgres
import HeraldTestSupport
import Testing

/// Two store instances are two connections, exactly like two `herald-server` nodes on one database.
@Suite("PostgreSQL: concurrent writers on several nodes", .enabled(if: PostgresCluster.binariesAvailable, PostgresCluster.skipReason))
struct PostgresConcurrencyTests {
    @Test("R3: two nodes appending to one user's stream at once get 1…N with no gap and no duplicate")
    func streamSequences() throws {
        let url = try PostgresCluster.newDatabase()
        let perNode = 150
        let nodes = try (0..<2).map { _ in try PostgresStore(url: url) }
        let results = try runConcurrently(nodes.enumerated().map { index, store in
            { @Sendable () throws -> [Int64] in
                try (0..<perNode).map { n in
                    // Every second append shares a transaction with another user's append, like a group commit.
                    try store.transaction {
                        if n.isMultiple(of: 2) { _ = try store.appendEvent(user: "bob", payload: [UInt8(index)], now: 1) }
                        return try store.appendEvent(user: "alice", payload: [UInt8(index), UInt8(n % 256)], now: 1)
                    }
                }
            }
        })
        for seqs in results { #expect(zip(seqs, seqs.dropFirst()).allSatisfy { $0 < $1 }) }
        let all = results.flatMap { $0 }.sorted()
        #expect(all == Array(1...Int64(2 * perNode)))
        let stored = try nodes[0].events(user: "alice", after: 0, limit: 10_000)
        #expect(stored.map(\.seq) == Array(1...Int64(2 * perNode)))
        #expect(try nodes[1].latestSeq(user: "alice") == Int64(2 * perNode))
        #expect(try nodes[1].events(user: "bob", after: 0, limit: 10_000).map(\.seq) == Array(1...Int64(perNode)))
    }

    @Test("R2: sends into one conversation from two nodes reach each stream in storage order")
    func conversationOrder() throws {
        let url = try PostgresCluster.newDatabase()
        let setup = try PostgresStore(url: url)
        for user in ["alice", "bob", "carol"] { try setup.upsertUser(id: user, name: user) }
        let group = try setup.createGroup(title: "G", creator: "alice", members: ["bob", "carol"], now: 1)
        let nodes = try (0..<2).map { _ in try PostgresStore(url: url) }
        let senders = ["alice", "bob"]
        _ = try runConcurrently(nodes.enumerated().map { index, store in
            { @Sendable () throws -> Int in
                for n in 0..<60 {
                    // What the sync service does for one send: store it, then append it to every participant's stream.
                    try store.transaction {
                        let (message, _) = try store.insertMessage(
                            conversation: group.id, sender: senders[index], clientMessageId: "k\(n)", kind: .text, text: "\(n)", imageURL: nil, now: 2)
                        for user in group.participants {
                            _ = try store.appendEvent(user: user, payload: Array(String(message.order).utf8), now: 2)
                        }
                    }
                }
                return 0
            }
        })
        let history = try setup.history(conversation: group.id, before: nil, limit: 1_000).reversed().map(\.order)
        #expect(history.count == 120)
        for user in group.participants {
            let stream = try setup.events(user: user, after: 0, limit: 1_000).map { Int64(String(decoding: $0.payload, as: UTF8.self)) ?? -1 }
            #expect(stream == history, "\(user)'s stream order differs from storage order")
        }
    }

    @Test("U7: acks of one user on two nodes are serialised, so the newest read event carries the current unread count")
    func concurrentAcksKeepCountsInSeqOrder() throws {
        let (url, setup) = try postgresStoreWithUsers()
        let c = try setup.findOrCreateDirect(between: "alice", and: "bob", now: 1).conversation
        let messages = try send(3, from: "bob", in: c.id, store: setup)
        _ = try setup.appendEvent(user: "alice", payload: Array("start".utf8), now: 1)
        let nodes = try (0..<2).map { _ in try PostgresStore(url: url) }
        // What SyncCore's ack does on each node: mark read, count, append the read event with the count (U7).
        // Node 0 pauses between counting and appending; node 1 acks another message meanwhile.
        _ = try runConcurrently(nodes.enumerated().map { index, store in
            { @Sendable () throws -> Int in
                if index == 1 { Thread.sleep(forTimeInterval: 0.1) }
                try store.transaction {
                    _ = try store.markRead(user: "alice", messageIds: [messages[index].id], now: 5)
                    let count = try store.unreadCount(user: "alice", conversation: c.id)
                    if index == 0 { Thread.sleep(forTimeInterval: 0.5) }
                    _ = try store.appendEvent(user: "alice", payload: Array(String(count).utf8), now: 5)
                }
                return 0
            }
        })
        let events = try setup.events(user: "alice", after: 1, limit: 10)
        #expect(events.count == 2)
        let newest = events.last.map { String(decoding: $0.payload, as: UTF8.self) }
        #expect(newest == String(try setup.unreadCount(user: "alice", conversation: c.id)), "the newest read event states a stale count")
    }

    @Test("U6: two users acking each other's messages on two nodes at once both commit (no deadlock on the stream heads)")
    func crossedAcksDoNotDeadlock() throws {
        let (url, setup) = try postgresStoreWithUsers()
        let c = try setup.findOrCreateDirect(between: "alice", and: "bob", now: 1).conversation
        let fromBob = try send(1, from: "bob", in: c.id, store: setup)[0]
        let fromAlice = try send(1, from: "alice", in: c.id, store: setup, startingAt: 2_000)[0]
        // Both users have a stream head row, as after any event.
        _ = try setup.appendEvent(users: ["alice", "bob"], payload: Array("start".utf8), now: 1)
        let nodes = try (0..<2).map { _ in try PostgresStore(url: url) }
        // What SyncCore's ack does: mark read, append the reader's read event, append the receipt to the sender's stream.
        // Node 0 (alice) pauses before the receipt; node 1 (bob) acks meanwhile. Locking the reader's head first and the
        // sender's later made each node hold the head the other wanted.
        let acks: [(reader: String, sender: String, message: String)] = [("alice", "bob", fromBob.id), ("bob", "alice", fromAlice.id)]
        let results = try runConcurrently(nodes.enumerated().map { index, store in
            { @Sendable () throws -> Int in
                if index == 1 { Thread.sleep(forTimeInterval: 0.1) }
                let ack = acks[index]
                return try store.transaction {
                    let read = try store.markRead(user: ack.reader, messageIds: [ack.message], now: 5)
                    _ = try store.appendEvent(user: ack.reader, payload: Array("read".utf8), now: 5)
                    if index == 0 { Thread.sleep(forTimeInterval: 0.4) }
                    _ = try store.appendEvent(user: ack.sender, payload: Array("receipt".utf8), now: 5)
                    return read.count
                }
            }
        })
        #expect(results == [1, 1])
        #expect(try setup.isRead(user: "alice", message: fromBob.id) && setup.isRead(user: "bob", message: fromAlice.id))
        #expect(try setup.events(user: "alice", after: 0, limit: 10).count == 3)
        #expect(try setup.events(user: "bob", after: 0, limit: 10).count == 3)
    }

    @Test("R4: the same retry racing on two nodes is stored once; both get the original")
    func idempotentRace() throws {
        let (url, setup) = try postgresStoreWithUsers()
        let c = try setup.findOrCreateDirect(between: "alice", and: "bob", now: 1).conversation
        let nodes = try (0..<2).map { _ in try PostgresStore(url: url) }
        let count = 80
        let results = try runConcurrently(nodes.map { store in
            { @Sendable () throws -> [(String, Bool)] in
                try (0..<count).map { n in
                    let (message, duplicate) = try store.insertMessage(
                        conversation: c.id, sender: "alice", clientMessageId: "retry-\(n)", kind: .text, text: "\(n)", imageURL: nil, now: 2)
                    return (message.id, duplicate)
                }
            }
        })
        for n in 0..<count {
            let (first, second) = (results[0][n], results[1][n])
            #expect(first.0 == second.0)
            #expect(first.1 != second.1, "exactly one of the two inserts of retry-\(n) is the original")
        }
        #expect(try setup.unreadCount(user: "bob", conversation: c.id) == count)
        #expect(try setup.history(conversation: c.id, before: nil, limit: 1_000).count == count)
    }

    @Test("U3: the same ack on two nodes makes each message read exactly once")
    func ackRace() throws {
        let (url, setup) = try postgresStoreWithUsers()
        let c = try setup.findOrCreateDirect(between: "alice", and: "bob", now: 1).conversation
        let messages = try send(60, from: "bob", in: c.id, store: setup)
        let nodes = try (0..<2).map { _ in try PostgresStore(url: url) }
        let results = try runConcurrently(nodes.map { store in
            { @Sendable () throws -> [String] in
                try messages.flatMap { message in try store.markRead(user: "alice", messageIds: [message.id], now: 5).map(\.id) }
            }
        })
        #expect((results[0] + results[1]).sorted() == messages.map(\.id).sorted())
        #expect(Set(results[0]).isDisjoint(with: results[1]))
        #expect(try setup.unreadCount(user: "alice", conversation: c.id) == 0)
    }
}
