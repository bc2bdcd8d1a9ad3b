import Foundation
import HeraldProtocol
@testable import HeraldServer
import HeraldStorePostgres
import HeraldTestSupport
import Testing

/// P1-P5 when a user's devices are spread over several real `herald-server` nodes on one PostgreSQL database:
/// the push decision sees every node's devices, and pushes and their withdrawals reach the node that
/// holds the device.
@Suite("Multi-node pushes: P1-P5 with a user's devices on different nodes", .serialized,
       .enabled(if: PostgresCluster.binariesAvailable, PostgresCluster.skipReason))
struct MultiNodePushTests {
    /// Two nodes on a fresh database with the given grace period, alice's and bob's tokens.
    private struct TwoNodes {
        let url: String
        let a: ServerHarness
        let b: ServerHarness
        let alice: String
        let bob: String

        func stop() { [a, b].forEach { $0.stop() } }
    }

    private func twoNodes(grace: String) throws -> TwoNodes {
        let (url, servers) = try startNodes(2, ["--push-grace-seconds", grace])
        return TwoNodes(
            url: url, a: servers[0], b: servers[1],
            alice: try ServerHarness.token("alice", store: url), bob: try ServerHarness.token("bob", store: url))
    }

    private func send(_ client: SyncTestClient, _ conversation: String, _ key: String, _ text: String) throws -> String {
        try #require(try client.request(#"{"type":"send","conversation":"\#(conversation)","clientMessageId":"\#(key)","text":"\#(text)"}"#).message?.id)
    }

    private static let background = #""scene":"background""#
    private static let list = #""scene":"list""#
    private static func viewing(_ c: String) -> String { #""scene":"thread","conversation":"\#(c)","atBottom":true"# }

    @Test("P1, P2, P3: bob's phone in the background on node B gets alice's message sent on node A, with every field; his foreground laptop on A does not; the outbox row is written once")
    func pushReachesAnotherNode() throws {
        let nodes = try twoNodes(grace: "0.3")
        defer { nodes.stop() }
        let alice = try SyncTestClient.synced(port: nodes.a.port, token: nodes.alice, device: "alice-laptop", scene: Self.list)
        let c = try #require(try alice.request(#"{"type":"dm","user":"bob"}"#).conversation?.id)
        let phone = try SyncTestClient.synced(port: nodes.b.port, token: nodes.bob, device: "phone", scene: Self.background)
        let laptop = try SyncTestClient.synced(port: nodes.a.port, token: nodes.bob, device: "laptop", scene: Self.list)

        let m = try send(alice, c, "p1", "ping across nodes")
        let push = try #require(try phone.event(timeoutMilliseconds: 5_000) { $0.event == .push }.push)
        #expect(push.conversation == c)
        #expect(push.message == m)
        #expect(push.sender == "alice")
        #expect(push.title == "Alice")
        #expect(push.preview == "ping across nodes")
        #expect(push.url == "herald://conversation/\(c)")
        #expect(laptop.settle(milliseconds: 300).allSatisfy { $0.event != .push }, "P3: no push to a foreground device")
        #expect(phone.settle(milliseconds: 300).allSatisfy { $0.event != .push }, "one push, not one per node")

        let store = try PostgresStore(url: nodes.url)
        defer { store.close() }
        let outbox = try store.pushes(user: "bob")
        #expect(outbox.map(\.device) == ["phone"])
        #expect(outbox.map(\.message) == [m])
    }

    @Test("P1: no push to bob's background phone while his laptop views c on the other node (either way round); pushed again once it leaves")
    func viewingOnAnyNodeSuppresses() throws {
        let nodes = try twoNodes(grace: "0.3")
        defer { nodes.stop() }
        let alice = try SyncTestClient.synced(port: nodes.a.port, token: nodes.alice, device: "alice-laptop", scene: Self.list)
        let c = try #require(try alice.request(#"{"type":"dm","user":"bob"}"#).conversation?.id)
        // Phone on B, laptop viewing on A (the sender's node); then phone on A, laptop viewing on B.
        for (round, (phonePort, laptopPort)) in [(nodes.b.port, nodes.a.port), (nodes.a.port, nodes.b.port)].enumerated() {
            let phone = try SyncTestClient.synced(port: phonePort, token: nodes.bob, device: "phone", scene: Self.background)
            let laptop = try SyncTestClient.synced(port: laptopPort, token: nodes.bob, device: "laptop", scene: Self.viewing(c))
            _ = try send(alice, c, "v\(round)", "while viewing")
            #expect(phone.settle(milliseconds: 1_200).allSatisfy { $0.event != .push }, "round \(round): viewing c on any node suppresses")

            try laptop.request(#"{"type":"scene",\#(Self.list)}"#)
            let m = try send(alice, c, "w\(round)", "after leaving")
            let push = try #require(try phone.event(timeoutMilliseconds: 5_000) { $0.event == .push }.push)
            #expect(push.message == m, "round \(round)")
            phone.close()
            laptop.close()
        }
    }

    @Test("P4: a message read on node A within the grace period is never pushed to bob's phone on node B")
    func readWithinGraceOnAnotherNode() throws {
        let nodes = try twoNodes(grace: "1")
        defer { nodes.stop() }
        let alice = try SyncTestClient.synced(port: nodes.a.port, token: nodes.alice, device: "alice-laptop", scene: Self.list)
        let c = try #require(try alice.request(#"{"type":"dm","user":"bob"}"#).conversation?.id)
        let phone = try SyncTestClient.synced(port: nodes.b.port, token: nodes.bob, device: "phone", scene: Self.background)
        let laptop = try SyncTestClient.synced(port: nodes.a.port, token: nodes.bob, device: "laptop", scene: Self.list)

        let read = try send(alice, c, "g1", "read at once")
        #expect(try laptop.request(#"{"type":"ack","messages":["\#(read)"]}"#).read == [read])
        #expect(phone.settle(milliseconds: 1_800).allSatisfy { $0.event != .push }, "read within the grace: dropped")

        let unread = try send(alice, c, "g2", "left unread")
        let push = try #require(try phone.event(timeoutMilliseconds: 5_000) { $0.event == .push }.push)
        #expect(push.message == unread)
    }

    @Test("P5: a push delivered to bob's phone on node B is withdrawn (push.cleared) when his laptop on node A reads the message")
    func readOnAnotherNodeWithdraws() throws {
        let nodes = try twoNodes(grace: "0.3")
        defer { nodes.stop() }
        let alice = try SyncTestClient.synced(port: nodes.a.port, token: nodes.alice, device: "alice-laptop", scene: Self.list)
        let c = try #require(try alice.request(#"{"type":"dm","user":"bob"}"#).conversation?.id)
        let phone = try SyncTestClient.synced(port: nodes.b.port, token: nodes.bob, device: "phone", scene: Self.background)
        let laptop = try SyncTestClient.synced(port: nodes.a.port, token: nodes.bob, device: "laptop", scene: Self.list)

        let m = try send(alice, c, "c1", "to be read")
        #expect(try phone.event(timeoutMilliseconds: 5_000) { $0.event == .push }.push?.message == m)
        #expect(try laptop.request(#"{"type":"ack","messages":["\#(m)"]}"#).read == [m])
        let cleared = try phone.event(timeoutMilliseconds: 5_000) { $0.event == .pushCleared }
        #expect(cleared.conversationId == c)
        #expect(cleared.messageId == m)
        #expect(phone.settle(milliseconds: 300).allSatisfy { $0.event != .pushCleared }, "withdrawn once")
        #expect(laptop.settle(milliseconds: 100).allSatisfy { $0.event != .pushCleared }, "the laptop never had the push")

        let store = try PostgresStore(url: nodes.url)
        defer { store.close() }
        #expect(try store.pushes(user: "bob").isEmpty, "the outbox row is withdrawn")
    }
}
