import HeraldTestSupport
import Testing

/// The benchmark broadcast endpoint (`--bench-endpoints`, the semantics of the bench kit): a text goes to every other client
/// on a broadcast path, `hello` is answered `ready`, and clients come and go without disturbing the others.
@Suite("Broadcast endpoint")
struct EngineBroadcastTests {
    private func join(_ server: ServerHarness, _ index: Int) throws -> RawWebSocketClient {
        let client = try RawWebSocketClient.connect(port: server.port, path: "/ws?user=\(index)")
        try client.sendText("hello \(index)")
        #expect(try client.readMessage().text == "ready")
        return client
    }

    @Test("Write path: a message reaches every other member on both loops, never its sender; members come and go without disturbing the rest")
    func everyOtherMemberGetsIt() throws {
        let server = try ServerHarness.start(["--bench-endpoints", "--threads", "2"])
        defer { server.stop() }
        var clients = try (0..<6).map { try join(server, $0) }
        try clients[0].sendText("first")
        for client in clients.dropFirst() { #expect(try client.readMessage().text == "first") }

        // Members leave and others join, many times over: each leaving member is let go, the rest keep receiving.
        for round in 0..<20 {
            clients[2].close()
            clients[2] = try join(server, 100 + round)
        }
        clients[4].close()
        try clients[1].sendText("second")
        for index in [0, 2, 3, 5] {
            // The sender of "first" got nothing before this: its next message is "second".
            #expect(try clients[index].readMessage().text == "second", "client \(index)")
        }
        #expect(server.isRunning, "server died: \(server.standardError)")
    }
}
