import Foundation
import HeraldProtocol
@testable import HeraldServer
import HeraldStorePostgres
import HeraldTestSupport
import Testing

/// An application's backend publishing a message from its own PostgreSQL transaction with `herald_send_message`,
/// while two real `herald-server` nodes serve the users: committed, it is delivered and counted like any send (R1, R3,
/// U1, P1); rolled back, it never existed.
@Suite("Multi-node: herald_send_message inside an application's transaction", .serialized,
       .enabled(if: PostgresCluster.binariesAvailable, PostgresCluster.skipReason))
struct MultiNodeSQLPublishTests {

    @Test("R1, R3, U1, P1: a message published in a transaction that commits reaches bob's devices on both nodes once, counts unread and pushes his background phone; one that rolls back is never seen; a retry is a duplicate (R4)")
    func publishInsideTransaction() throws {
        let (url, servers) = try startNodes(2, ["--push-grace-seconds", "0"])
        defer { servers.forEach { $0.stop() } }
        let alice = try ServerHarness.token("alice", store: url)
        let bob = try ServerHarness.token("bob", store: url)
        let aliceLaptop = try SyncTestClient.synced(port: servers[0].port, token: alice, device: "alice-laptop", scene: #""scene":"list""#)
        let c = try #require(try aliceLaptop.request(#"{"type":"dm","user":"bob"}"#).conversation?.id)
        let laptop = try SyncTestClient.synced(port: servers[0].port, token: bob, device: "laptop", scene: #""scene":"list""#)
        let phone = try SyncTestClient.synced(port: servers[1].port, token: bob, device: "phone", scene: #""scene":"background""#)
        _ = try PostgresCluster.run("CREATE TABLE app_orders (id int PRIMARY KEY)", database: url)

        let published = try PostgresCluster.run(
            """
            BEGIN;
            INSERT INTO app_orders VALUES (1);
            SELECT * FROM herald_send_message(conversation => '\(c)', sender => 'alice', client_message_id => 'order-1',
                                              message_text => 'Your order has shipped');
            COMMIT;
            """, database: url)
        #expect(published.isEmpty, "COMMIT returns no rows")
        for client in [laptop, phone, aliceLaptop] {
            let event = try client.event(timeoutMilliseconds: 5_000) { $0.event == .message }
            #expect(event.message?.text == "Your order has shipped")
            #expect(event.message?.sender == "alice")
            #expect(event.message?.senderName == "Alice")
            #expect(event.message?.clientMessageId == "order-1")
            #expect(event.seq != nil)
        }
        let push = try #require(try phone.event(timeoutMilliseconds: 5_000) { $0.event == .push }.push)
        #expect(push.preview == "Your order has shipped")
        #expect(push.conversation == c)
        #expect(try laptop.request(#"{"type":"conversations"}"#).conversations?.first { $0.id == c }?.unread == 1)

        // Rolled back: neither the application's row nor the message ever existed.
        #expect(throws: (any Error).self) {
            _ = try PostgresCluster.run(
                """
                BEGIN;
                INSERT INTO app_orders VALUES (2);
                SELECT * FROM herald_send_message(conversation => '\(c)', sender => 'alice', client_message_id => 'order-2', message_text => 'never');
                SELECT 1 / 0;
                COMMIT;
                """, database: url)
        }
        // R4: the same client message id again is the original, stored and delivered once.
        let retry = try PostgresCluster.run(
            "SELECT * FROM herald_send_message(conversation => '\(c)', sender => 'alice', client_message_id => 'order-1', message_text => 'again')",
            database: url)
        #expect(retry.first?[1] == "t", "duplicate")
        for client in [laptop, phone] {
            let late = client.settle(milliseconds: 500)
            #expect(late.allSatisfy { $0.event != .message && $0.event != .push }, "nothing for the rolled-back or retried message: \(late.map(\.event))")
        }
        #expect(try PostgresCluster.run("SELECT count(*) FROM app_orders", database: url) == [["1"]])
        #expect(try laptop.request(#"{"type":"history","conversation":"\#(c)"}"#).messages?.map(\.text) == ["Your order has shipped"])
        #expect(try laptop.request(#"{"type":"conversations"}"#).conversations?.first { $0.id == c }?.unread == 1)

        // Bad input fails the application's statement with a clear error and stores nothing.
        for (call, message) in [
            ("conversation => 'c999', sender => 'alice', client_message_id => 'x1', message_text => 'hi'", "unknown conversation c999"),
            ("conversation => 'nonsense', sender => 'alice', client_message_id => 'x2', message_text => 'hi'", "unknown conversation nonsense"),
            ("conversation => '\(c)', sender => 'carol', client_message_id => 'x3', message_text => 'hi'", "carol is not a participant"),
            ("conversation => '\(c)', sender => 'alice', client_message_id => 'x4'", "a message needs text or an image"),
        ] {
            #expect {
                _ = try PostgresCluster.run("SELECT * FROM herald_send_message(\(call))", database: url)
            } throws: { error in
                "\(error)".contains(message)
            }
        }
        #expect(try PostgresCluster.run("SELECT count(*) FROM messages", database: url) == [["1"]])
    }
}
