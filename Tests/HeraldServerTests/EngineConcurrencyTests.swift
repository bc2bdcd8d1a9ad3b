import HeraldTestSupport
import Testing

@Suite("Engine: many connections")
struct EngineConcurrencyTests {
    @Test("5,000 concurrent /echo connections are held at once and every one still echoes")
    func fiveThousandConnections() throws {
        let limit = FileDescriptorLimit.raiseToHardLimit()
        try #require(limit >= 5_200, "the test process needs 5,200 descriptors, the hard limit allows \(limit)")
        // One address holds them all: the per-address limit (64 by default, one person's devices) is raised for it.
        try withEchoServer(["--max-connections-per-ip", "5000"]) { server in
            var clients: [RawWebSocketClient] = []
            clients.reserveCapacity(5_000)
            // Send every upgrade first, then read the answers, so the handshakes overlap like real load.
            var keys: [String] = []
            for _ in 0..<5_000 {
                let client = try RawWebSocketClient(port: server.port, timeoutMilliseconds: 20_000)
                let request = RawWebSocketClient.upgradeRequest(path: "/echo")
                try client.send(request.bytes)
                clients.append(client)
                keys.append(request.key)
            }
            for (client, key) in zip(clients, keys) {
                let response = try client.readHTTPResponse()
                #expect(response.status == 101 && response.header("Sec-WebSocket-Accept") == RawWebSocketClient.acceptValue(for: key))
            }
            // All 5,000 are open at the same time now; each one echoes its own message.
            for (index, client) in clients.enumerated() { try client.sendText("client \(index)") }
            var wrong = 0
            for (index, client) in clients.enumerated() where try client.readMessage().text != "client \(index)" { wrong += 1 }
            #expect(wrong == 0)
            for client in clients { client.close() }
        }
    }
}
