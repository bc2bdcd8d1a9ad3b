import Foundation
import HeraldProtocol
import HeraldTestSupport
import Synchronization
import Testing

/// Three nodes on one PostgreSQL, every phone sending as fast as its answers come back, into one group and DMs that
/// overlap across nodes: the nodes' commits interleave all the time and each node's own events often reach a device
/// before another node's earlier ones (the held frames of SyncCore+HeldFrames.swift). Every device still sees one
/// order per conversation, its stream without gap or repeat, and counts that match (R2, R3, U7).
@Suite("Multi-node: concurrent writers on three nodes keep every guarantee", .serialized,
       .enabled(if: PostgresCluster.binariesAvailable, PostgresCluster.skipReason))
struct MultiNodeConcurrentWritersTests {
    @Test("R2, R3, U7 over 3 nodes: 20 s of concurrent sends into one group and overlapping DMs give every device one order per conversation, its stream without gap or repeat, and counts that match; nothing lost or duplicated")
    func concurrentWritersKeepEveryGuarantee() throws {
        let (url, servers) = try startNodes(3)
        defer { servers.forEach { $0.stop() } }
        let users = (0..<6).map { "u\($0)" }
        var tokens: [String: String] = [:]
        for user in users { tokens[user] = try ServerHarness.token(user, store: url) }
        // Each user's phone on node (index % 3); u0 and u3 also have a laptop on the next node.
        var devices: [(user: String, client: SyncTestClient)] = []
        for (index, user) in users.enumerated() {
            devices.append((user, try SyncTestClient(port: servers[index % 3].port, token: tokens[user]!, device: "phone")))
        }
        for (index, user) in [(0, "u0"), (3, "u3")] {
            devices.append((user, try SyncTestClient(port: servers[(index + 1) % 3].port, token: tokens[user]!, device: "laptop")))
        }
        for device in devices { try device.client.request(#"{"type":"sync"}"#) }
        let phones = Dictionary(uniqueKeysWithValues: devices.prefix(users.count).map { ($0.user, $0.client) })
        let members = users.dropFirst().map { "\"\($0)\"" }.joined(separator: ",")
        let group = try #require(try phones["u0"]!.request(#"{"type":"group","title":"all","members":[\#(members)]}"#).conversation?.id)
        var participants: [String: Set<String>] = [group: Set(users)]
        var conversationsOf: [String: [String]] = [:]
        for user in users { conversationsOf[user] = [group] }
        for (one, other) in [("u0", "u1"), ("u1", "u2"), ("u2", "u0"), ("u3", "u4"), ("u0", "u3"), ("u4", "u5")] {
            let dm = try #require(try phones[one]!.request(#"{"type":"dm","user":"\#(other)"}"#).conversation?.id)
            participants[dm] = [one, other]
            conversationsOf[one, default: []].append(dm)
            conversationsOf[other, default: []].append(dm)
        }

        // Every phone sends for a while, in turn into the group and its DMs; every laptop only reads.
        let until = syncTestNow() + 20_000
        let sent = Mutex<[String: [String]]>([:])  // conversation -> acknowledged message ids
        let failures = Mutex<[String]>([])
        let done = DispatchGroup()
        for (index, device) in devices.enumerated() {
            // Each client is used by its own thread only.
            nonisolated(unsafe) let client = device.client
            let user = device.user
            let own = conversationsOf[user] ?? []
            let sends = index < users.count
            done.enter()
            Thread.detachNewThread {
                defer { done.leave() }
                var n = 0
                while syncTestNow() < until {
                    guard sends else {
                        _ = client.settle(milliseconds: 100)
                        continue
                    }
                    let conversation = own[n % own.count]
                    n += 1
                    do {
                        let response = try client.request(
                            #"{"type":"send","conversation":"\#(conversation)","clientMessageId":"\#(user)-\#(n)","text":"\#(n)"}"#)
                        if let id = response.message?.id, response.ok == true {
                            sent.withLock { $0[conversation, default: []].append(id) }
                        } else {
                            failures.withLock { $0.append("\(user) send \(n): \(response.error.map { "\($0.code)" } ?? "no id")") }
                        }
                    } catch {
                        failures.withLock { $0.append("\(user) send \(n): \(error)") }
                    }
                }
            }
        }
        #expect(done.wait(timeout: .now() + 90) == .success)
        #expect(failures.withLock { $0 }.isEmpty, "\(failures.withLock { $0.prefix(5) })")
        let acknowledged = sent.withLock { $0 }
        let total = acknowledged.values.map(\.count).reduce(0, +)
        #expect(total > 100, "only \(total) messages were sent")

        for (user, client) in devices {
            let mine = Set(conversationsOf[user] ?? [])
            let expected = acknowledged.filter { mine.contains($0.key) }.values.map(\.count).reduce(0, +)
            // Wait until every message of this user's conversations arrived, then a little more (a duplicate would show).
            let deadline = syncTestNow() + 20_000
            func received() -> [EventFrame] {
                client.log.compactMap { frame -> EventFrame? in
                    if case .event(let event) = frame, event.seq != nil { return event }
                    return nil
                }
            }
            while received().filter({ $0.event == .message }).count < expected, syncTestNow() < deadline {
                _ = client.settle(milliseconds: 100)
            }
            _ = client.settle(milliseconds: 300)
            let events = received()
            // R3: the stream as the device saw it live: one seq after another, none missing, none twice.
            let seqs = events.compactMap(\.seq)
            #expect(zip(seqs, seqs.dropFirst()).allSatisfy { $1 == $0 + 1 }, "\(user): stream seqs with a gap or a repeat")
            for conversation in mine {
                let ids = events.filter { $0.event == .message && $0.message?.conversation == conversation }.compactMap(\.message?.id)
                // R2: every acknowledged message exactly once, in storage order (ids follow commit order per conversation).
                let stored = (acknowledged[conversation] ?? []).sorted { Int64($0.dropFirst())! < Int64($1.dropFirst())! }
                #expect(ids == stored, "\(user) in \(conversation): \(ids.count) messages, \(stored.count) acknowledged, or another order")
                // U7: each message event's count is the number of others' messages up to it in the stream.
                var unread = 0
                for event in events where event.event == .message && event.message?.conversation == conversation {
                    if event.message?.sender != user { unread += 1 }
                    if let count = event.unread?[conversation] { #expect(count == unread, "\(user) in \(conversation): count \(count) at seq \(event.seq ?? 0), \(unread) expected") }
                }
            }
        }
        // U1 across nodes: what each user's list says is what was sent to them (nothing was read).
        for user in users {
            let listed = try phones[user]!.request(#"{"type":"conversations"}"#).unread ?? [:]
            for conversation in conversationsOf[user] ?? [] {
                let expected = othersCount(acknowledged[conversation] ?? [], in: devices, user: user, conversation: conversation)
                #expect(listed[conversation] == expected, "\(user) in \(conversation): unread \(listed[conversation] ?? -1), \(expected) expected")
            }
        }
    }

    /// How many of `ids` (messages of `conversation`) were not sent by `user`, by the events any device of theirs saw.
    private func othersCount(_ ids: [String], in devices: [(user: String, client: SyncTestClient)], user: String, conversation: String) -> Int {
        guard let device = devices.first(where: { $0.user == user }) else { return 0 }
        var senders: [String: String] = [:]
        for frame in device.client.log {
            if case .event(let event) = frame, let message = event.message, message.conversation == conversation { senders[message.id] = message.sender }
        }
        return ids.filter { senders[$0] != nil && senders[$0] != user }.count
    }
}
