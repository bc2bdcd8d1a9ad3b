import Foundation
import HeraldProtocol
import HeraldStore
import HeraldStorePostgres
@testable import HeraldSync
import HeraldTestSupport
import Testing

/// With several nodes, another node may decide from a presence row that a device is still connected to this node when
/// it has just disconnected (its row is deleted a moment later). This node held the connection, so it decides: a device
/// that is gone is alerted through its push provider, one still connected is left to its stream.
@Suite("Several nodes: alerts for a device that disconnected a moment ago (P3, B1)",
       .enabled(if: PostgresCluster.binariesAvailable, PostgresCluster.skipReason))
final class DepartedDeviceAlertTests {
    let store: PostgresStore
    let core: SyncCore<Int>
    let now: Int64 = 1_763_800_000_000
    let conversation: String

    init() throws {
        store = try PostgresStore(url: try PostgresCluster.newDatabase())
        for (id, name) in [("alice", "Alice"), ("bob", "Bob")] { try store.upsertUser(id: id, name: name) }
        var configuration = SyncConfiguration(pushGraceMilliseconds: 0, retentionMilliseconds: 7 * 24 * 3_600_000)
        configuration.push.providers = [.webhook]
        core = SyncCore<Int>(store: store, configuration: configuration)
        try core.joinCluster(node: "n1")
        let store = self.store
        let now = self.now
        conversation = try store.transaction { try store.findOrCreateDirect(between: "alice", and: "bob", now: now).conversation.id }
        // Bob's phone connects here and registers for pushes without a connection.
        _ = core.process([.connect(1, user: "bob", name: "Bob", deviceName: "bob-phone")], now: now)
        _ = core.process([.text(1, Array(#"{"id":1,"type":"sync"}"#.utf8))], now: now)
        _ = core.process([.text(1, Array(#"{"id":2,"type":"push.register","provider":"webhook","token":"phone-1"}"#.utf8))], now: now)
        // In the background, so a push over the connection is what it would get while connected.
        _ = core.process([.text(1, Array(#"{"id":3,"type":"scene","scene":"background","foreground":false}"#.utf8))], now: now)
    }

    deinit { store.close() }

    /// A message from alice stored without this node (as another node would), so only the signal can alert bob.
    private func messageFromAlice(_ text: String) throws -> String {
        try store.transaction {
            try store.insertMessage(conversation: conversation, sender: "alice", clientMessageId: text, kind: .text, text: text, imageURL: nil, now: now).message.id
        }
    }

    private var phoneKey: Int64 { core.cluster?.key(for: 1) ?? -1 }

    @Test("P3 across nodes: a push asked for a device that has just disconnected goes to its provider; for a connected one it is a push event")
    func pushForDepartedDevice() throws {
        let key = phoneKey
        let first = try messageFromAlice("while connected")
        let delivered = core.process([.cluster(.push(deviceKey: key, message: first))], now: now)
        #expect(try store.pushQueueDepth() == 0, "connected: the push event goes over the connection")
        #expect(delivered.contains { $0.devices == [1] && String(decoding: $0.payload(at: 0), as: UTF8.self).contains(#""event":"push""#) })

        _ = core.process([.disconnect(1)], now: now)
        let second = try messageFromAlice("just after the lock")
        _ = core.process([.cluster(.push(deviceKey: key, message: second))], now: now)
        #expect(try store.pushQueueDepth() == 1, "gone: its provider gets the alert")

        // Read meanwhile (on any device): nothing to alert any more.
        let third = try messageFromAlice("read elsewhere")
        _ = try store.transaction { try store.markRead(user: "bob", messageIds: [third], now: now) }
        _ = core.process([.cluster(.push(deviceKey: key, message: third))], now: now)
        #expect(try store.pushQueueDepth() == 1)
    }

    @Test("B1 across nodes: a bell asked for a device that has just disconnected is queued for its provider; a connected one gets it from its stream")
    func bellForDepartedDevice() throws {
        let key = phoneKey
        let bell = try store.transaction { try store.createNotification(user: "bob", kind: "follow", actor: "alice", text: "Alice followed you", url: nil, now: now) }
        _ = core.process([.cluster(.bellPush(deviceKey: key, notification: bell.id))], now: now)
        #expect(try store.pushQueueDepth() == 0, "still connected: nothing for the provider")
        _ = core.process([.disconnect(1)], now: now)
        _ = core.process([.cluster(.bellPush(deviceKey: key, notification: bell.id))], now: now)
        #expect(try store.pushQueueDepth() == 1)
        // An unknown key (never this node's, or forgotten) asks nothing of anyone.
        _ = core.process([.cluster(.bellPush(deviceKey: key + 100, notification: bell.id))], now: now)
        #expect(try store.pushQueueDepth() == 1)
    }
}
