import Foundation
import HeraldProtocol
import HeraldRules
@testable import HeraldSync
import HeraldStore
import HeraldStoreProtocol
import Testing

/// The other nodes' presence rows as a test sets them, and how often the core asked for them.
private final class ClusterRowsStandIn: ClusterPresenceStore {
    /// Users with a live foreground device on another node.
    var onlineElsewhere: Set<String> = []
    private(set) var presenceReads = 0

    func joinCluster(node: String) throws {}
    func leaveCluster(node: String) throws {}
    func heartbeat(node: String, pruneSilentMilliseconds: Int64) throws {}
    func takeOverDeadNodes(node: String, silentMilliseconds: Int64) throws -> [DeadNode] { [] }
    func messagesCommitted(by node: String, since: Int64) throws -> [CommittedMessage] { [] }
    func writePresence(node: String, departed: [Int64], present: [DevicePresence]) throws {}
    func presence(users: [String], aliveMilliseconds: Int64, excluding node: String) throws -> [DevicePresence] {
        presenceReads += 1
        return users.filter(onlineElsewhere.contains).map {
            DevicePresence(node: "other", deviceKey: 1, user: $0, device: "phone", foreground: true, viewing: nil)
        }
    }
    func enqueuePush(
        user: String, device: String, deviceKey: Int64, conversation: String, message: String, sender: String, preview: String, url: String, now: Int64
    ) throws -> Int64 { 0 }
    func requestPush(node: String, deviceKey: Int64, message: String) throws {}
    func requestBellPush(node: String, deviceKey: Int64, notification: String) throws {}
    func claimPublished(message: String, node: String, now: Int64) throws -> Bool { false }
}

@Suite("SyncCore: presence changes of another node (E2, R5)")
struct SyncCoreRemotePresenceTests {
    /// A core on node "here" whose only conversation is alice and bob's; alice's devices are on another node.
    private static func fixture() throws -> (SyncCoreFixture, ClusterRowsStandIn) {
        let f = try SyncCoreFixture()
        let rows = ClusterRowsStandIn()
        f.core.cluster = ClusterPresence(node: "here", store: rows)
        f.online(1, "alice")
        _ = f.dm(1, with: "bob")
        f.process([.disconnect(1)])
        // Her going offline here goes out once 2 s have passed since she came online; 2 s after that, her next
        // change is news at once.
        f.advance(milliseconds: 2_000)
        f.advance(milliseconds: 2_000)
        f.clear()
        return (f, rows)
    }

    private static func signal(_ user: String) -> SyncInput<Int> { .cluster(.ephemeral(.presence(node: "other", user: user, lastSeen: nil))) }

    private static func presence(_ f: SyncCoreFixture, _ device: Int) -> [String] {
        f.ephemeralEvents(device).filter { $0.event == .presence }.map { "\($0.user ?? "?")=\($0.status?.rawValue ?? "?")" }
    }

    @Test("E2: another node's change reaches the live devices here of the user's contacts, and only theirs (R5)")
    func reachesContactsHere() throws {
        let (f, rows) = try Self.fixture()
        f.online(2, "bob"); f.online(4, "carol")
        f.clear()
        rows.onlineElsewhere = ["alice"]
        f.process([Self.signal("alice")])
        #expect(Self.presence(f, 2) == ["alice=online"])
        #expect(Self.presence(f, 4).isEmpty, "R5: carol shares no conversation with alice")
    }

    @Test("E2: another node's changes that arrive in one batch are worked out together: one read of the presence rows for all of them, however many signals")
    func batchReadsOnce() throws {
        let (f, rows) = try Self.fixture()
        f.online(2, "bob")
        f.clear()
        let before = rows.presenceReads
        rows.onlineElsewhere = ["alice", "carol"]
        f.process((0..<50).map { _ in Self.signal("alice") } + [Self.signal("dave"), Self.signal("carol")])
        #expect(rows.presenceReads == before + 1)
        #expect(Self.presence(f, 2) == ["alice=online"], "R5: told once, of alice only")
    }

    @Test("E2: what was told of another node's user is kept only while someone here hears of them; a change of a user's own devices here is kept to space what goes to the other nodes")
    func keptOnlyForListeners() throws {
        let (f, rows) = try Self.fixture()
        rows.onlineElsewhere = ["alice", "carol"]
        f.process([Self.signal("alice"), Self.signal("carol")])
        #expect(f.core.ephemeral.coalescer.lastAnnounced("alice") == nil, "nobody is connected here")
        f.online(2, "bob")
        f.advance(milliseconds: 2_000)
        rows.onlineElsewhere = ["carol"]
        f.process([Self.signal("alice"), Self.signal("carol")])
        #expect(f.core.ephemeral.coalescer.lastAnnounced("alice")?.status == .offline, "bob heard it")
        #expect(f.core.ephemeral.coalescer.lastAnnounced("carol") == nil, "R5: bob shares nothing with carol")
        #expect(f.core.ephemeral.coalescer.lastAnnounced("bob")?.status == .online, "bob's own change, told to the other nodes")
    }

    @Test("E2: a change told to nobody here does not silence the next: bob, back after missing alice's offline, hears her come online again")
    func missedChangeDoesNotSilenceTheNext() throws {
        let (f, rows) = try Self.fixture()
        f.online(2, "bob")
        rows.onlineElsewhere = ["alice"]
        f.process([Self.signal("alice")])
        #expect(Self.presence(f, 2).last == "alice=online")
        f.process([.disconnect(2)])
        f.advance(milliseconds: 2_000)
        rows.onlineElsewhere = []
        f.process([Self.signal("alice")])
        f.advance(milliseconds: 2_000)
        f.online(3, "bob")
        f.clear()
        rows.onlineElsewhere = ["alice"]
        f.process([Self.signal("alice")])
        #expect(Self.presence(f, 3) == ["alice=online"])
    }
}
