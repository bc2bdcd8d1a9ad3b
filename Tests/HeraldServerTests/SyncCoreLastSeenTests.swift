import Foundation
import HeraldProtocol
import HeraldRules
@testable import HeraldSync
import HeraldStore
import Testing

@Suite("SyncCore: last seen outlives a restart (E2)")
struct SyncCoreLastSeenTests {
    /// The presence events `device` got from `deliveries`, as "user=status@lastSeen".
    private static func presence(_ deliveries: [SyncDelivery<Int>], for device: Int) -> [String] {
        deliveries.flatMap { delivery in
            delivery.devices.indices.filter { delivery.devices[$0] == device }.compactMap { index -> String? in
                guard case .success(.event(let event)) = ServerFrame.decode(delivery.payload(at: index)), event.event == .presence else { return nil }
                return "\(event.user ?? "?")=\(event.status?.rawValue ?? "?")@\(event.lastSeen.map(String.init) ?? "-")"
            }
        }
    }

    @Test("E2: the time is stored in the batch that saw the user's last device go (not before), and a new core on the same store tells it")
    func storedAndToldAfterRestart() throws {
        let f = try SyncCoreFixture()
        f.online(1, "alice"); f.online(2, "bob"); f.online(3, "alice")
        _ = f.dm(1, with: "bob")
        f.process([.disconnect(1)])
        #expect(try f.store.lastSeen(users: ["alice"]).isEmpty, "alice still has a device")
        f.advance(milliseconds: 1_000)
        f.process([.disconnect(3), .disconnect(2)])
        let leftAt = f.now
        #expect(try f.store.lastSeen(users: ["alice", "bob"]) == ["alice": leftAt, "bob": leftAt], "one write for the batch's users")

        // A restart: a new core on the same database, which knows nothing of alice but what the store kept.
        let restarted = SyncCore<Int>(store: f.store)
        let later = leftAt + 60_000
        _ = restarted.process([.connect(7, user: "bob", name: "Bob", deviceName: nil)], now: later)
        let synced = restarted.process([.text(7, Array(#"{"type":"sync","id":1}"#.utf8))], now: later)
        #expect(Self.presence(synced, for: 7) == ["alice=offline@\(leftAt)"])
    }

    @Test("E2: at shutdown everyone still connected is last seen then, in one transaction")
    func departuresAtShutdown() throws {
        let f = try SyncCoreFixture()
        f.online(1, "alice"); f.online(2, "bob")
        _ = f.dm(1, with: "bob")
        f.advance(milliseconds: 5_000)
        f.core.recordDepartures(now: f.now)
        #expect(try f.store.lastSeen(users: ["alice", "bob", "carol"]) == ["alice": f.now, "bob": f.now])
    }

    @Test("E2: a contact who was never seen is told as nothing (offline without a time is not news), after a restart too")
    func neverSeen() throws {
        let f = try SyncCoreFixture()
        f.online(1, "alice")
        _ = f.dm(1, with: "bob")
        let restarted = SyncCore<Int>(store: f.store)
        _ = restarted.process([.connect(7, user: "alice", name: "Alice", deviceName: nil)], now: f.now)
        let synced = restarted.process([.text(7, Array(#"{"type":"sync","id":1}"#.utf8))], now: f.now)
        #expect(Self.presence(synced, for: 7).isEmpty)
    }
}
