import Foundation
import HeraldProtocol
import HeraldStore
@testable import HeraldStorePostgres
@testable import HeraldSync
import HeraldTestSupport
import Testing

/// Which batches need a writing transaction: on a store shared by several nodes that means waiting for the nodes' write
/// lock and holding it for the whole batch, so a batch that only reads (devices connecting and syncing) runs as one
/// read snapshot instead.
@Suite("A batch that only reads runs as a snapshot, outside the nodes' write lock")
struct SyncCoreBatchTransactionTests {
    private static func text(_ device: Int, _ json: String) -> SyncInput<Int> { .text(device, Array(json.utf8)) }

    private static func kind(_ inputs: [SyncInput<Int>], core: SyncCore<Int>) -> BatchTransaction {
        core.transactionNeeded(for: inputs, prepared: core.prepare(inputs))
    }

    @Test("Connects, sync, scene, history and other nodes' typing and presence read only; a send, a disconnect (E2), a push from another node write; other nodes' commits alone need no transaction")
    func classification() throws {
        let fixture = try SyncCoreFixture()
        let core = fixture.core
        let sync = Self.text(1, #"{"type":"sync","id":1}"#)
        let scene = Self.text(1, #"{"type":"scene","id":2,"scene":"list","foreground":true}"#)
        let history = Self.text(1, #"{"type":"history","id":3,"conversation":"c1"}"#)
        let send = Self.text(1, #"{"type":"send","id":4,"conversation":"c1","clientMessageId":"k1","text":"hi"}"#)
        let broken = Self.text(1, #"{"type":"send","id":5"#)
        let presence = SyncInput<Int>.cluster(.ephemeral(.presence(node: "n2", user: "bob", lastSeen: nil)))
        let runs = SyncInput<Int>.streamRuns(StreamRuns(runs: [], bodies: []))

        #expect(Self.kind([.connect(1, user: "zed", name: "Zed", deviceName: nil), sync, scene, history, presence, broken], core: core) == .snapshot)
        #expect(try fixture.store.user(id: "zed") == UserRecord(id: "zed", name: "Zed"), "admitted ahead: the connect writes nothing")
        #expect(Self.kind([runs, .streamReconnected], core: core) == .none)
        #expect(Self.kind([runs, sync], core: core) == .snapshot)
        #expect(Self.kind([sync, send], core: core) == .writing)
        #expect(Self.kind([sync, .disconnect(1)], core: core) == .writing)
        #expect(Self.kind([sync, .cluster(.push(deviceKey: 1, message: "m1"))], core: core) == .writing)
        #expect(Self.kind([.cluster(.pushCleared(deviceKey: 1, conversation: "c1", message: "m1")), .cluster(.signedOut(user: "bob", device: nil))], core: core) == .snapshot)
    }

    @Test("A device the store cannot admit (sign-outs unreadable) is not let in unchecked: it is told to come back (1013)")
    func arrivalUnchecked() throws {
        let fixture = try SyncCoreFixture()
        fixture.store.close()
        fixture.process([.connect(1, user: "alice", name: "Alice", deviceName: nil, issuedAt: 1)])
        #expect(fixture.core.takeCloses().map(\.code) == [HeraldCloseCode.tryAgainLater])
        #expect(fixture.core.connectedDeviceCount == 0)
    }

    @Test("E2: a last-seen time an earlier batch could not store makes the next batch a writing one, which stores it")
    func unstoredLastSeenWrites() throws {
        let fixture = try SyncCoreFixture()
        fixture.online(1, "alice")
        fixture.core.ephemeral.lastSeenToStore["alice"] = fixture.now
        #expect(Self.kind([Self.text(1, #"{"type":"bell","id":9}"#)], core: fixture.core) == .writing)
    }
}

@Suite("Several nodes: a batch that only reads does not wait for the nodes' write lock (R1a, R5)",
       .enabled(if: PostgresCluster.binariesAvailable, PostgresCluster.skipReason))
final class PostgresReadBatchTests {
    let url: String
    let store: PostgresStore
    /// Another node's store on the same database.
    let other: PostgresStore
    let core: SyncCore<Int>
    let now: Int64 = 1_763_800_000_000

    init() throws {
        url = try PostgresCluster.newDatabase()
        store = try PostgresStore(url: url)
        other = try PostgresStore(url: url)
        for (id, name) in [("alice", "Alice"), ("bob", "Bob"), ("carol", "Carol")] { try store.upsertUser(id: id, name: name) }
        core = SyncCore<Int>(store: store)
    }

    deinit {
        store.close()
        other.close()
    }

    private func process(_ inputs: [SyncInput<Int>]) -> [Int: [ServerFrame]] {
        var frames: [Int: [ServerFrame]] = [:]
        for delivery in core.process(inputs, now: now) {
            for (index, device) in delivery.devices.enumerated() {
                if case .success(let frame) = ServerFrame.decode(delivery.payload(at: index)) { frames[device, default: []].append(frame) }
            }
        }
        return frames
    }

    private static func response(_ frames: [ServerFrame]?, id: Int) -> ResponseFrame? {
        for case .response(let response) in frames ?? [] where response.id == id { return response }
        return nil
    }

    @Test("Devices of a new and a known user connect and sync while another node holds the write lock; the new user is stored and the write clock does not move")
    func connectsWhileAnotherNodeWrites() throws {
        let clock = try other.connection.scalar("SELECT generation FROM write_clock")
        try other.connection.executeScript("BEGIN; SELECT pg_advisory_xact_lock(\(PostgresSchema.writeLock))")
        // Were the lock taken, the batch would wait for the other node and give up after 2 s.
        try store.connection.executeScript("SET lock_timeout = '2s'")
        let frames = process([
            .connect(1, user: "dora", name: "Dora", deviceName: nil), .text(1, Array(#"{"type":"sync","id":1}"#.utf8)),
            .connect(2, user: "alice", name: "Alice", deviceName: nil), .text(2, Array(#"{"type":"sync","id":1}"#.utf8)),
        ])
        try other.connection.executeScript("ROLLBACK")
        #expect(Self.response(frames[1], id: 1)?.ok == true)
        #expect(Self.response(frames[2], id: 1)?.ok == true)
        #expect(core.isLive(1) && core.isLive(2))
        #expect(try other.user(id: "dora") == UserRecord(id: "dora", name: "Dora"))
        #expect(try other.connection.scalar("SELECT generation FROM write_clock") == clock)
    }

    @Test("R5: a conversation read in a snapshot is not taken from memory by a later writing transaction: a member another node removed meanwhile gets no more of its messages")
    func snapshotReadsAreNotKept() throws {
        let group = try store.transaction {
            try store.createGroup(title: "Team", creator: "alice", members: ["bob", "carol"], now: now).id
        }
        _ = process([.connect(1, user: "alice", name: "Alice", deviceName: nil), .text(1, Array(#"{"type":"sync","id":1}"#.utf8))])
        // Read in a snapshot batch: the conversation and its participants as they are now.
        let members = process([.text(1, Array(#"{"type":"members","id":2,"conversation":"\#(group)"}"#.utf8))])
        #expect(Self.response(members[1], id: 2)?.participants?.map(\.id) == ["alice", "bob", "carol"])
        try other.removeParticipant(user: "carol", conversation: group)
        let carolBefore = try other.latestSeq(user: "carol")
        let sent = process([.text(1, Array(#"{"type":"send","id":3,"conversation":"\#(group)","clientMessageId":"k1","text":"hi"}"#.utf8))])
        #expect(Self.response(sent[1], id: 3)?.ok == true)
        #expect(try other.latestSeq(user: "carol") == carolBefore, "carol left: the message is not in her stream")
        #expect(try other.latestSeq(user: "bob") > 0)
    }

    @Test("R4: a batch that runs again (another node wrote first) still stores a message whose sender disconnected later in the same batch")
    func rerunKeepsDepartedSendersRequests() throws {
        let dm = try store.transaction { try store.findOrCreateDirect(between: "alice", and: "bob", now: now).conversation.id }
        _ = process([.connect(1, user: "alice", name: "Alice", deviceName: nil), .text(1, Array(#"{"type":"sync","id":1}"#.utf8))])
        // Alone long enough, this node presumes nobody wrote meanwhile; then another node writes, so the next batch is
        // refused once and runs again, whole.
        for index in 0...PostgresStore.soleWriterStreakToPresume {
            _ = try store.appendEvent(user: "carol", payload: [UInt8(index)], now: now)
        }
        _ = try other.appendEvent(user: "carol", payload: [200], now: now)
        _ = process([.text(1, Array(#"{"type":"send","id":2,"conversation":"\#(dm)","clientMessageId":"k1","text":"bye"}"#.utf8)), .disconnect(1)])
        #expect(try other.history(conversation: dm, before: nil, limit: 10).map(\.text) == ["bye"])
        #expect(!core.isLive(1))
        #expect(core.connectedDeviceCount == 0)
    }
}
