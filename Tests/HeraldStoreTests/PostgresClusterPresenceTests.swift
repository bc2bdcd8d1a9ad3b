import Foundation
import HeraldStore
@testable import HeraldStorePostgres
import HeraldTestSupport
import Testing

@Suite("PostgreSQL: cluster presence and cross-node push routing (P1-P5 across nodes)",
       .enabled(if: PostgresCluster.binariesAvailable, PostgresCluster.skipReason))
struct PostgresClusterPresenceTests {
    /// Two stores on one database, joined as nodes "n1" and "n2", with a direct conversation of alice and bob.
    private func twoNodes() throws -> (url: String, n1: PostgresStore, n2: PostgresStore, conversation: String) {
        let (url, n1) = try postgresStoreWithUsers()
        let n2 = try PostgresStore(url: url)
        try n1.joinCluster(node: "n1")
        try n2.joinCluster(node: "n2")
        let conversation = try n1.findOrCreateDirect(between: "alice", and: "bob", now: 1).conversation.id
        return (url, n1, n2, conversation)
    }

    @Test("P1 across nodes: a node sees the other nodes' live devices of a user (not its own), updated and removed (several in one call); a silent node's devices are ignored, then pruned")
    func presence() throws {
        let (_, n1, n2, c) = try twoNodes()
        defer { [n1, n2].forEach { $0.close() } }
        let phone = DevicePresence(node: "n1", deviceKey: 1, user: "bob", device: "phone", foreground: false, viewing: nil)
        let laptop = DevicePresence(node: "n2", deviceKey: 1, user: "bob", device: "laptop", foreground: true, viewing: c)
        try n1.writePresence(node: "n1", departed: [], present: [phone])
        try n2.writePresence(node: "n2", departed: [], present: [laptop, DevicePresence(node: "n2", deviceKey: 2, user: "alice", device: "a", foreground: true, viewing: nil)])
        #expect(try n1.presence(user: "bob", aliveMilliseconds: 5_000, excluding: "n1") == [laptop])
        #expect(try n2.presence(user: "bob", aliveMilliseconds: 5_000, excluding: "n2") == [phone])

        var moved = laptop
        moved.viewing = nil
        moved.foreground = false
        try n2.writePresence(node: "n2", departed: [], present: [moved])
        #expect(try n1.presence(user: "bob", aliveMilliseconds: 5_000, excluding: "n1") == [moved])
        // Several at once (devices that left together), by this node's keys only: n1's device 1 stays.
        try n2.writePresence(node: "n2", departed: [1, 2, 99], present: [])
        #expect(try n1.presence(user: "bob", aliveMilliseconds: 5_000, excluding: "n1").isEmpty)
        #expect(try n1.presence(user: "alice", aliveMilliseconds: 5_000, excluding: "n1").isEmpty)
        #expect(try n2.presence(user: "bob", aliveMilliseconds: 5_000, excluding: "n2") == [phone])
        try n2.writePresence(node: "n2", departed: [], present: [])

        // n1 falls silent for a minute: its rows no longer count; a heartbeat of n2 prunes them.
        try n1.writePresence(node: "n1", departed: [], present: [phone])
        try n2.connection.execute("UPDATE cluster_nodes SET heartbeat_at = heartbeat_at - 60000 WHERE node_id = $1", .text("n1"))
        #expect(try n2.presence(user: "bob", aliveMilliseconds: 5_000, excluding: "n2").isEmpty)
        #expect(try n2.presence(user: "bob", aliveMilliseconds: 120_000, excluding: "n2") == [phone])
        try n2.heartbeat(node: "n2", pruneSilentMilliseconds: 30_000)
        #expect(try n2.connection.scalar("SELECT count(*) FROM device_presence WHERE node_id = 'n1'") == 0)
        #expect(try n2.connection.scalar("SELECT count(*) FROM cluster_nodes") == 1)

        try n2.leaveCluster(node: "n2")
        #expect(try n1.connection.scalar("SELECT count(*) FROM device_presence") == 0)
    }

    @Test("P4 across nodes: a node that died is taken over by exactly one live node, once, which learns the messages the dead node committed lately and who already has a push of each")
    func takeOverDeadNode() throws {
        let (url, n1, n2, c) = try twoNodes()
        let n3 = try PostgresStore(url: url)
        try n3.joinCluster(node: "n3")
        defer { [n1, n2, n3].forEach { $0.close() } }
        let m = try send(2, from: "alice", in: c, store: n1)
        for message in m {
            let body = #"{"type":"event","event":"message","message":{"id":"\#(message.id)"}}"#
            _ = try n1.appendEvent(users: ["alice", "bob"], payload: Array(body.utf8), now: 2, toParticipantsOf: nil)
        }
        _ = try n1.enqueuePush(
            user: "bob", device: "phone", deviceKey: 1, conversation: c, message: m[0].id, sender: "alice", preview: "p", url: "u", now: 2)
        #expect(try n2.takeOverDeadNodes(node: "n2", silentMilliseconds: 5_000).isEmpty, "every node is alive")

        try n2.connection.execute("UPDATE cluster_nodes SET heartbeat_at = heartbeat_at - 60000 WHERE node_id = $1", .text("n1"))
        let taken = try n2.takeOverDeadNodes(node: "n2", silentMilliseconds: 5_000)
        #expect(taken.map(\.node) == ["n1"])
        #expect(try n3.takeOverDeadNodes(node: "n3", silentMilliseconds: 5_000).isEmpty, "taken over once")
        #expect(try n2.takeOverDeadNodes(node: "n2", silentMilliseconds: 5_000).isEmpty, "taken over once")
        let since = try #require(taken.first).lastHeartbeat
        #expect(try n2.messagesCommitted(by: "n1", since: since) == [
            CommittedMessage(message: m[0].id, pushedUsers: ["bob"]), CommittedMessage(message: m[1].id, pushedUsers: []),
        ])
        #expect(try n2.messagesCommitted(by: "n2", since: since).isEmpty)
    }

    @Test("P4 across nodes: a node whose LISTEN session is still connected is slow, not dead: not taken over 10 s late (its pushes would go twice), taken over a minute late; with the session gone, 2 s late is enough")
    func slowNodeIsNotTakenOver() throws {
        let (_, n1, n2, _) = try twoNodes()
        defer { [n1, n2].forEach { $0.close() } }
        // n1's LISTEN session stands for any live backend of n1.
        let pid = try #require(try n1.connection.scalar("SELECT pg_backend_pid()"))
        try n1.connection.execute("UPDATE cluster_nodes SET listener_pid = $1 WHERE node_id = 'n1'", .int(pid))
        try n2.connection.execute("UPDATE cluster_nodes SET heartbeat_at = heartbeat_at - 10000 WHERE node_id = 'n1'")
        #expect(try n2.takeOverDeadNodes(node: "n2", silentMilliseconds: 5_000).isEmpty, "alive and slow")
        try n2.connection.execute("UPDATE cluster_nodes SET heartbeat_at = heartbeat_at - 51000 WHERE node_id = 'n1'")
        #expect(try n2.takeOverDeadNodes(node: "n2", silentMilliseconds: 5_000).map(\.node) == ["n1"], "stuck for a minute")

        // A session that is gone: its node died, and 2 s of silence are enough.
        try n2.connection.execute(
            "UPDATE cluster_nodes SET taken_over_by = NULL, listener_pid = 2147483000, heartbeat_at = heartbeat_at + 59000 WHERE node_id = 'n1'")
        #expect(try n2.takeOverDeadNodes(node: "n2", silentMilliseconds: 5_000).map(\.node) == ["n1"])
    }

    @Test("P4 takeover reads only the bodies a dead node's wake-ups name, by primary key: with 5,000 other bodies stored, the plan reads 2")
    func takeoverReadsOnlyNamedBodies() throws {
        let (_, n1, n2, _) = try twoNodes()
        defer { [n1, n2].forEach { $0.close() } }
        let message = #"{"type":"event","event":"message","message":{"id":"m7"}}"#
        try n2.connection.execute(
            """
            INSERT INTO event_bodies (id, created_at, payload)
            SELECT 1000000 + g, 1, convert_to('{"type":"event","event":"message","message":{"id":"m' || g || '"}}', 'UTF8')
            FROM generate_series(1, 5000) g
            """)
        try n2.connection.execute(
            "INSERT INTO event_bodies (id, created_at, payload) VALUES (2000001, 1, $1), (2000002, 1, $1)", .blob(Array(message.utf8)))
        try n2.connection.execute(
            """
            INSERT INTO stream_wakeups (node_id, created_at, users, first_seqs, first_bodies, counts, signals, generation)
            VALUES ('n1', 10, '{alice,bob}', '{1,1}', '{2000001,2000001}', '{2,2}', '{}', 0)
            """)
        try n2.connection.execute("ANALYZE event_bodies")
        #expect(try n2.messagesCommitted(by: "n1", since: 5).map(\.message) == ["m7"])
        // EXPLAIN ANALYZE with the parameters written in: the rows each scan of event_bodies read (kept or filtered).
        let sql = PostgresStore.committedMessagesQuery.replacingOccurrences(of: "$1", with: "'n1'").replacingOccurrences(of: "$2", with: "5")
        let plan = try n2.connection.query("EXPLAIN (ANALYZE, FORMAT JSON) " + sql) { row in row.text(0) }.joined()
        let read = Self.rowsRead(from: "event_bodies", inPlan: plan)
        #expect(read <= 2, "the takeover's plan read \(read) rows of event_bodies: \(plan.prefix(2_000))")
    }

    /// The rows the plan's scans of `relation` returned or removed, summed over their loops.
    private static func rowsRead(from relation: String, inPlan json: String) -> Int {
        guard let data = json.data(using: .utf8), let root = try? JSONSerialization.jsonObject(with: data) else { return .max }
        func walk(_ value: Any) -> Int {
            if let list = value as? [Any] { return list.reduce(0) { $0 + walk($1) } }
            guard let node = value as? [String: Any] else { return 0 }
            var sum = 0
            if node["Relation Name"] as? String == relation {
                let loops = node["Actual Loops"] as? Int ?? 1
                sum += ((node["Actual Rows"] as? Int ?? 0) + (node["Rows Removed by Filter"] as? Int ?? 0)) * loops
            }
            sum += (node["Rows Removed by Join Filter"] as? Int ?? 0)
            for (_, child) in node { sum += walk(child) }
            return sum
        }
        return walk(root)
    }

    @Test("P1 across nodes: a node writes its presence rows outside the nodes' write lock: while another node holds it, the write goes through, and the write clock does not move")
    func presenceOutsideWriteLock() throws {
        let (_, n1, n2, _) = try twoNodes()
        defer { [n1, n2].forEach { $0.close() } }
        let clock = try n2.connection.scalar("SELECT generation FROM write_clock")
        try n1.connection.executeScript("BEGIN; SELECT pg_advisory_xact_lock(\(PostgresSchema.writeLock))")
        // Were the lock taken, this would wait for n1 (and give up after 2 s) instead of writing.
        try n2.connection.executeScript("SET lock_timeout = '2s'")
        let phone = DevicePresence(node: "n2", deviceKey: 7, user: "bob", device: "phone", foreground: true, viewing: nil)
        try n2.writePresence(node: "n2", departed: [], present: [phone])
        try n1.connection.executeScript("ROLLBACK")
        #expect(try n1.presence(user: "bob", aliveMilliseconds: 5_000, excluding: "n1") == [phone])
        #expect(try n2.connection.scalar("SELECT generation FROM write_clock") == clock)
    }

    @Test("Push requests reach the listening nodes only on commit; a withdrawal (P5) notifies the node that delivered the push, never the withdrawing node itself")
    func routing() throws {
        struct Abort: Error {}
        let (url, n1, n2, c) = try twoNodes()
        defer { [n1, n2].forEach { $0.close() } }
        let received = PostgresStreamListenerTests.Received()
        let listener = PostgresStreamListener(url: url) { received.append($0) }
        listener.start()
        defer { listener.stop() }
        #expect(received.wait(for: 1) == [.reconnected])
        let m = try send(2, from: "alice", in: c, store: n1)

        #expect(throws: Abort.self) {
            try n1.transaction {
                try n1.requestPush(node: "n2", deviceKey: 9, message: m[0].id)
                throw Abort()
            }
        }
        try n1.transaction { try n1.requestPush(node: "n2", deviceKey: 7, message: m[0].id) }
        #expect(received.wait(for: 2) == [.reconnected, .push(node: "n2", deviceKey: 7, message: m[0].id)])

        // n2 delivered m0 to its device 7 and n1 to its device 3; n1 withdraws: only n2 hears of it.
        _ = try n2.enqueuePush(
            user: "bob", device: "phone", deviceKey: 7, conversation: c, message: m[0].id, sender: "alice", preview: "p", url: "u", now: 2)
        _ = try n1.enqueuePush(
            user: "bob", device: "tablet", deviceKey: 3, conversation: c, message: m[0].id, sender: "alice", preview: "p", url: "u", now: 2)
        // A push recorded without a node (single-node path) is withdrawn silently.
        _ = try n1.enqueuePush(user: "bob", device: "old", conversation: c, message: m[1].id, sender: "alice", preview: "p", url: "u", now: 2)
        #expect(try n1.withdrawPushes(message: m[0].id, user: "bob", now: 3).map(\.device) == ["phone", "tablet"])
        #expect(try n1.withdrawPushes(message: m[1].id, user: "bob", now: 3).map(\.device) == ["old"])
        #expect(received.wait(for: 3).dropFirst(2) == [.pushCleared(node: "n2", deviceKey: 7, conversation: c, message: m[0].id)])
        Thread.sleep(forTimeInterval: 0.3)
        #expect(received.wait(for: 3).count == 3, "nothing for n1's own push or the node-less one")
        #expect(try n1.pushes(user: "bob").isEmpty)
    }

    @Test("Malformed push payloads are ignored")
    func parse() {
        #expect(PostgresStreamListener.parseSignal("push n2 7 12") == .push(node: "n2", deviceKey: 7, message: "m12"))
        #expect(PostgresStreamListener.parseSignal("clear n2 7 3 12") == .pushCleared(node: "n2", deviceKey: 7, conversation: "c3", message: "m12"))
        for bad in ["", "push", "push n2 7", "push n2 x 12", "push n2 7 0", "push  7 12", "clear n2 7 12", "clear n2 7 0 12", "pull n2 7 12", "push n2 7 12 1"] {
            #expect(PostgresStreamListener.parseSignal(bad) == nil, "\(bad)")
        }
    }
}
