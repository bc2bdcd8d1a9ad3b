import HeraldTestSupport
import HeraldWebSocket
import PropertyBased
import Testing

/// A client connection and a server connection wired together in memory, through the real handshake bytes.
@Suite("Client/server round trip in memory")
struct RoundTripTests {
    /// Moves `bytes` into `connection` and returns its events.
    static func deliver(_ bytes: inout [UInt8], to connection: inout WebSocketStateMachine, replies: inout [UInt8]) -> [WebSocketEvent] {
        var events: [WebSocketEvent] = []
        connection.receive(bytes, output: &replies) { events.append($0) }
        bytes = []
        return events
    }

    @Test("RFC 6455 §4 + §5: handshake, messages both ways, ping/pong and the close handshake")
    func fullConversation() throws {
        // Handshake: client request -> server validation -> 101 -> client validation, with a frame right behind the 101.
        let key = WebSocketHandshake.randomClientKey()
        let requestBytes = WebSocketHandshake.clientRequest(host: "127.0.0.1:1", path: "/echo", key: key, subprotocols: ["herald.v1"])
        var requestParser = HTTPRequestHeadParser()
        guard case .complete(let head, _) = requestParser.parse(requestBytes) else { Issue.record("request did not parse"); return }
        let upgrade = try WebSocketHandshake.validateUpgrade(head).get()
        var server = WebSocketStateMachine(role: .server)
        var toClient = WebSocketHandshake.serverResponse(for: upgrade, subprotocol: upgrade.offeredSubprotocols.first, extensionsHeader: nil)
        server.sendText("welcome", into: &toClient)
        var responseParser = HTTPResponseHeadParser()
        guard case .complete(let response, let consumed) = responseParser.parse(toClient) else { Issue.record("response did not parse"); return }
        #expect(try WebSocketHandshake.validateServerResponse(response, key: key, offeredSubprotocols: ["herald.v1"]).get() == "herald.v1")
        toClient.removeFirst(consumed)

        var client = WebSocketStateMachine(role: .client)
        var toServer: [UInt8] = []
        #expect(Self.deliver(&toClient, to: &client, replies: &toServer) == [.text("welcome")])

        // Client -> server: text, binary, a fragmented message with a ping in the middle.
        client.sendText("héllo", into: &toServer)
        client.sendBinary([0, 255, 1], into: &toServer)
        client.sendFrame(opcode: .text, payload: Array("frag".utf8), fin: false, into: &toServer)
        client.sendPing([42], into: &toServer)
        client.sendFrame(opcode: .continuation, payload: Array("ment".utf8), fin: true, into: &toServer)
        #expect(Self.deliver(&toServer, to: &server, replies: &toClient)
            == [.text("héllo"), .binary([0, 255, 1]), .ping([42]), .text("fragment")])
        // The server's automatic pong reaches the client.
        #expect(Self.deliver(&toClient, to: &client, replies: &toServer) == [.pong([42])])

        // Server pings; the client answers automatically with a masked pong.
        server.sendPing([1, 2, 3], into: &toClient)
        #expect(Self.deliver(&toClient, to: &client, replies: &toServer) == [.ping([1, 2, 3])])
        #expect(toServer[1] & 0x80 == 0x80, "the client's pong is masked")
        #expect(Self.deliver(&toServer, to: &server, replies: &toClient) == [.pong([1, 2, 3])])

        // Close handshake started by the client (§7.1.2): server echoes, both end closed.
        client.close(code: .normal, reason: "done", into: &toServer)
        #expect(client.state == .closing)
        #expect(Self.deliver(&toServer, to: &server, replies: &toClient) == [.closed(code: .normal, reason: "done")])
        #expect(server.state == .closed)
        #expect(Self.deliver(&toClient, to: &client, replies: &toServer) == [.closed(code: .normal, reason: "")])
        #expect(client.state == .closed)
        #expect(toServer.isEmpty, "the client does not answer the reply")
    }

    @Test("RFC 6455 §5.1: a server failing a client gets its close frame to the client, which reports the code")
    func failureReachesPeer() {
        var server = WebSocketStateMachine(role: .server)
        var client = WebSocketStateMachine(role: .client)
        var toServer: [UInt8] = []
        var toClient: [UInt8] = []
        client.sendFrame(opcode: .continuation, payload: [1], fin: true, into: &toServer)  // continuation without start
        #expect(Self.deliver(&toServer, to: &server, replies: &toClient).map(withoutReason) == [failure(.protocolError)])
        #expect(toClient == ServerClose.protocolError)
        #expect(Self.deliver(&toClient, to: &client, replies: &toServer) == [.closed(code: .protocolError, reason: "")])
    }

    @Test("Property: any payload, any opcode, any chunking survives client -> server -> client")
    func roundTripProperty() async {
        await propertyCheck(input: Gen.uint8(in: 0...255).array(of: 0...400), Gen.int(in: 0...1), Gen.uint64(in: 0...UInt64.max)) {
            payload, kind, seed in
            var client = WebSocketStateMachine(role: .client)
            var server = WebSocketStateMachine(role: .server)
            var wire: [UInt8] = []
            let text = String(decoding: payload, as: UTF8.self)
            if kind == 0 { client.sendText(text, into: &wire) } else { client.sendBinary(payload, into: &wire) }
            var events: [WebSocketEvent] = []
            var replies: [UInt8] = []
            for range in ParserVerifier.ranges(for: .seeded(seed), count: wire.count) {
                server.receive(Array(wire[range]), output: &replies) { events.append($0) }
            }
            #expect(events == [kind == 0 ? .text(text) : .binary(payload)])
            // And back: the server's unmasked frame of the same message parses at a client.
            var back: [UInt8] = []
            if kind == 0 { server.sendText(text, into: &back) } else { server.sendBinary(payload, into: &back) }
            var clientEvents: [WebSocketEvent] = []
            client.receive(back, output: &replies) { clientEvents.append($0) }
            #expect(clientEvents == events)
            #expect(replies.isEmpty)
        }
    }
}
