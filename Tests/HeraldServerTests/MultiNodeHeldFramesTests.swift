import Foundation
import HeraldProtocol
import HeraldStoreProtocol
@testable import HeraldStorePostgres
@testable import HeraldSync
import HeraldTestSupport
import Testing

/// Two nodes on one PostgreSQL, each a sync core over its own store, driven by hand so the race is exact: node B
/// commits an event for alice, then node A commits a later one before B's wake-up reached A. Alice's device on A must
/// still get them in seq order, exactly once (R3), and the sender's answer only after its own event; the earlier one
/// comes with B's run (no store read per device) or, when it does not come in time, from the store.
@Suite("Several nodes: a device's later events wait for another node's earlier ones (R3)",
       .enabled(if: PostgresCluster.binariesAvailable, PostgresCluster.skipReason))
final class MultiNodeHeldFramesTests {
    let storeA: PostgresStore
    let storeB: PostgresStore
    let nodeA: SyncCore<Int>
    let nodeB: SyncCore<Int>
    let now: Int64 = 1_763_800_000_000
    /// DMs alice-bob and alice-carol.
    let withBob: String
    let withCarol: String
    /// What each device of node A received, in order, as (seq or nil, the frame's JSON).
    var receivedOnA: [Int: [(seq: Int64?, json: String)]] = [:]

    // Devices: on A, alice's 1 and carol's 2; on B, bob's 1.
    init() throws {
        let url = try PostgresCluster.newDatabase()
        storeA = try PostgresStore(url: url)
        storeB = try PostgresStore(url: url)
        for (id, name) in [("alice", "Alice"), ("bob", "Bob"), ("carol", "Carol")] { try storeA.upsertUser(id: id, name: name) }
        let configuration = SyncConfiguration(pushGraceMilliseconds: 60_000, retentionMilliseconds: 7 * 24 * 3_600_000)
        nodeA = SyncCore<Int>(store: storeA, configuration: configuration)
        nodeB = SyncCore<Int>(store: storeB, configuration: configuration)
        try nodeA.joinCluster(node: "a")
        try nodeB.joinCluster(node: "b")
        let (store, now) = (storeA, self.now)
        withBob = try store.transaction { try store.findOrCreateDirect(between: "alice", and: "bob", now: now).conversation.id }
        withCarol = try store.transaction { try store.findOrCreateDirect(between: "alice", and: "carol", now: now).conversation.id }
        for (device, user) in [(1, "alice"), (2, "carol")] {
            record(nodeA.process([.connect(device, user: user, name: user.capitalized, deviceName: nil)], now: now))
            record(nodeA.process([.text(device, Array(#"{"type":"sync","id":1}"#.utf8))], now: now))
        }
        _ = nodeB.process([.connect(1, user: "bob", name: "Bob", deviceName: nil)], now: now)
        _ = nodeB.process([.text(1, Array(#"{"type":"sync","id":1}"#.utf8))], now: now)
        receivedOnA = [:]
    }

    deinit {
        storeA.close()
        storeB.close()
    }

    private func record(_ deliveries: [SyncDelivery<Int>]) {
        for delivery in deliveries {
            for (index, device) in delivery.devices.enumerated() {
                let json = String(decoding: delivery.payload(at: index), as: UTF8.self)
                guard !json.contains(#""event":"typing""#), !json.contains(#""event":"presence""#) else { continue }
                receivedOnA[device, default: []].append((delivery.seqs.isEmpty ? Self.seq(in: json) : delivery.seqs[index], json))
            }
        }
    }

    private static func seq(in json: String) -> Int64? {
        guard let range = json.range(of: #""seq":"#) else { return nil }
        return Int64(json[range.upperBound...].prefix { $0.isNumber })
    }

    private func send(_ node: SyncCore<Int>, device: Int, in conversation: String, _ text: String, id: Int) -> [SyncDelivery<Int>] {
        node.process([.text(device, Array(#"{"type":"send","id":\#(id),"conversation":"\#(conversation)","clientMessageId":"\#(text)","text":"\#(text)"}"#.utf8))], now: now)
    }

    /// Alice's stream as the listener would hand node A the wake-up of B's commit: B's run of alice's stream over
    /// the body PostgreSQL stored.
    private func bobsRun(after cursor: Int64) throws -> StreamRuns {
        let event = try #require(try storeA.events(user: "alice", after: cursor, limit: 1).first)
        return StreamRuns(runs: [.init(user: "alice", firstSeq: event.seq, firstBody: 0, count: 1)], bodies: [event.payload])
    }

    /// B commits a message from bob to alice, then A commits carol's and alice's own; returns alice's cursor before.
    private func raceOfTwoNodes() throws -> Int64 {
        let cursor = try #require(nodeA.devices[1]?.cursor)
        _ = send(nodeB, device: 1, in: withBob, "from-bob", id: 2)
        record(send(nodeA, device: 2, in: withCarol, "from-carol", id: 2))
        record(send(nodeA, device: 1, in: withBob, "from-alice", id: 2))
        return cursor
    }

    @Test("The run from the other node arrives: alice's device gets bob's, carol's and her own message in seq order, then her answer; nothing read from the store")
    func heldUntilTheEarlierRunArrives() throws {
        let cursor = try raceOfTwoNodes()
        #expect(receivedOnA[1] == nil, "nothing for alice's device while bob's earlier event is on its way: \(receivedOnA[1] ?? [])")
        #expect(receivedOnA[2]?.contains { $0.json.contains("from-carol") && $0.seq != nil } == true, "carol, whose stream has no gap, got hers at once")

        record(nodeA.process([.streamRuns(try bobsRun(after: cursor))], now: now))
        let frames = try #require(receivedOnA[1])
        #expect(frames.count == 4, "\(frames)")
        #expect(frames.prefix(3).map(\.seq) == [cursor + 1, cursor + 2, cursor + 3])
        #expect(frames.prefix(3).map { ["from-bob", "from-carol", "from-alice"].first(where: $0.json.contains) } == ["from-bob", "from-carol", "from-alice"])
        #expect(frames[3].json.contains(#""type":"response""#) && frames[3].json.contains(#""id":2"#), "the answer to her send comes after her own event")
        #expect(nodeA.counters.streamGapReads == 0)
        #expect(nodeA.counters.heldStreamEvents == 2)

        // Later events flow as usual, and B's run heard again gives nothing twice.
        record(nodeA.process([.streamRuns(try bobsRun(after: cursor))], now: now))
        record(send(nodeA, device: 2, in: withCarol, "again", id: 3))
        #expect(receivedOnA[1]?.compactMap(\.seq) == [cursor + 1, cursor + 2, cursor + 3, cursor + 4])
    }

    @Test("The run does not come in time: after the limit the gap is read from the store, then what was held follows")
    func heldUntilTheLimitThenRead() throws {
        let cursor = try raceOfTwoNodes()
        let limit = SyncCore<Int>.heldFramesLimitMilliseconds
        record(nodeA.fireDueTimers(now: now + limit - 1))
        #expect(receivedOnA[1] == nil)
        #expect(nodeA.nextDeadline <= now + limit)
        record(nodeA.fireDueTimers(now: now + limit))
        let frames = try #require(receivedOnA[1])
        #expect(frames.prefix(3).map(\.seq) == [cursor + 1, cursor + 2, cursor + 3], "\(frames)")
        #expect(frames.count == 4 && frames[3].json.contains(#""type":"response""#))
        #expect(nodeA.counters.heldFramesTimedOut == 1)
        #expect(nodeA.counters.streamGapReads == 1)

        // The run arriving late delivers nothing twice.
        record(nodeA.process([.streamRuns(try bobsRun(after: cursor))], now: now + limit))
        #expect(receivedOnA[1]?.count == 4)
    }

    @Test("A device signed out while it holds frames gets them first, in order, gap read from the store, then the answer to its sign-out")
    func signOutFlushesWhatWasHeld() throws {
        let cursor = try raceOfTwoNodes()
        #expect(receivedOnA[1] == nil)
        record(nodeA.process([.text(1, Array(#"{"type":"signOut","id":3}"#.utf8))], now: now))
        let frames = try #require(receivedOnA[1])
        #expect(frames.prefix(3).map(\.seq) == [cursor + 1, cursor + 2, cursor + 3], "\(frames)")
        #expect(frames.count == 5 && frames[3].json.contains(#""id":2"#) && frames[4].json.contains(#""id":3"#), "both answers, in order: \(frames)")
        #expect(nodeA.takeCloses().map(\.device) == [1])
    }
}
