import Glibc
import HeraldNet
import Testing

/// The reply cork (what a handler writes while it is handed a connection's input goes out with one `send` when it
/// returns): every case in which the cork and the write queue could reorder or lose bytes.
extension ServerTests {
    @Test("Write path: a reply that does not fit the cork goes behind what the cork held, and later writes behind it")
    func corkSpillsInOrder() throws {
        let big = (0..<(40 << 10)).map { UInt8(truncatingIfNeeded: $0 &* 13 &+ 5) }
        var options = HandlerOptions()
        options.onRead = { connection in
            big.withUnsafeBytes { connection.write($0) }  // past the cork's 16 KiB: the echo moves into the queue first
            connection.write(Array("end".utf8))
        }
        let (server, events, port) = try startEchoServer(threads: 1, options: options)
        defer { #expect(stop(server)) }
        let client = try TestClient(port: port)
        #expect(events.waitUntil { $0.opened.count == 1 })
        try client.send("ab")
        #expect(try client.receive(exactly: 2 + big.count + 3) == Array("ab".utf8) + big + Array("end".utf8))
    }

    @Test("Write path: writeNow to the connection whose input is being handled goes behind the corked reply")
    func writeNowWhileCorkedKeepsOrder() throws {
        var options = HandlerOptions()
        options.onRead = { connection in
            Array("!".utf8).withUnsafeBytes { connection.loop.writeNow($0, on: connection) }
        }
        let (server, events, port) = try startEchoServer(threads: 1, options: options)
        defer { #expect(stop(server)) }
        let client = try TestClient(port: port)
        #expect(events.waitUntil { $0.opened.count == 1 })
        try client.send("ab")
        #expect(try client.receive(exactly: 3) == Array("ab!".utf8))
        try client.send("cd")
        #expect(try client.receive(exactly: 3) == Array("cd!".utf8))
    }

    @Test(
        "Write path: a close inside the read handler sends the corked reply first when after flush, drops it when not",
        arguments: [(afterFlush: true, expected: "last words"), (afterFlush: false, expected: "")]
    )
    func closeInsideReadHandler(afterFlush: Bool, expected: String) throws {
        var options = HandlerOptions()
        options.onRead = { connection in connection.close(afterFlush: afterFlush) }
        let (server, events, port) = try startEchoServer(threads: 1, options: options)
        defer { #expect(stop(server)) }
        let client = try TestClient(port: port)
        #expect(events.waitUntil { $0.opened.count == 1 })
        try client.send("last words")
        #expect(try client.receiveUntilClosed() == Array(expected.utf8))
    }

    @Test("Write path: corked bytes count toward the slow-consumer cap")
    func corkedBytesCountTowardTheCap() throws {
        var options = HandlerOptions()
        options.onRead = { connection in
            #expect(connection.queuedBytes == 60)  // the echo, held in the cork
            connection.write([UInt8](repeating: 0x41, count: 60))  // 120 > 100: the slow-consumer rule closes
        }
        let (server, events, port) = try startEchoServer(threads: 1, maxQueuedBytes: 100, options: options)
        defer { #expect(stop(server)) }
        let client = try TestClient(port: port)
        #expect(events.waitUntil { $0.opened.count == 1 })
        let handle = events.read { $0.opened[0] }
        try client.send([UInt8](repeating: 0x42, count: 60))
        #expect(events.waitUntil { $0.closed.contains(handle) })
        #expect(try client.receiveUntilClosed() == [])
    }

    @Test("Write path: what the kernel does not take of a corked reply is queued and arrives whole, in order")
    func corkedReplyPartlySentIsQueued() throws {
        let events = ServerEvents()
        let reply = (0..<15_000).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 1) }
        var options = HandlerOptions()
        options.echo = false
        options.onRead = { connection in
            reply.withUnsafeBytes { connection.write($0) }  // fits the cork; not the socket's buffers below
            connection.write(Array("+".utf8))
        }
        var config = ServerConfig(host: "127.0.0.1", port: 0, threads: 1, tickMilliseconds: 10)
        config.socketSendBufferBytes = 2_048
        let handlerOptions = options
        let server = try TCPServer(config: config) { connection in
            EchoHandler(connection, events: events, options: handlerOptions)
        }
        try server.start()
        defer { #expect(stop(server)) }
        let port = try #require(server.boundPort)
        let client = try TestClient(port: port, receiveBufferSize: 2_048)
        #expect(events.waitUntil { $0.opened.count == 1 })
        try client.send("go")
        // Give the server time to find the socket full before the client reads anything.
        #expect(events.waitUntil { $0.bytesRead == 2 })
        #expect(try client.receive(exactly: reply.count + 1) == reply + Array("+".utf8))
        try client.send("go")
        #expect(try client.receive(exactly: reply.count + 1) == reply + Array("+".utf8))
    }
}
