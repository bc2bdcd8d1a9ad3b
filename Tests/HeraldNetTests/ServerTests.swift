import Foundation
import Glibc
import HeraldNet
import Synchronization
import Testing

/// Real servers on 127.0.0.1:0 driven by blocking clients. Serialized: the tests measure descriptor
/// reuse and timing, which parallel tests in the same process would disturb.
@Suite("HeraldNet TCP server", .serialized)
struct ServerTests {
    init() {
        // Server and clients share this process: 2,000 connections are 4,000 descriptors.
        raiseOpenFileLimit()
    }

    @Test("echo: a small payload comes back byte for byte")
    func echoSmallPayload() throws {
        let (server, _, port) = try startEchoServer()
        defer { #expect(stop(server)) }
        let client = try TestClient(port: port)
        try client.send("hello, herald")
        #expect(try client.receive(exactly: 13) == Array("hello, herald".utf8))
    }

    @Test("echo: 1 MiB goes through partial writes, EPOLLOUT and the gather write intact")
    func echoOneMebibyte() throws {
        let (server, _, port) = try startEchoServer()
        defer { #expect(stop(server)) }
        var generator = SeededGenerator(seed: 1)
        let payload = [UInt8](unsafeUninitializedCapacity: 1 << 20) { buffer, initialized in
            // Pseudo-random, so a dropped or repeated chunk cannot line up by accident.
            UnsafeMutableRawBufferPointer(buffer).withMemoryRebound(to: UInt64.self) { words in
                for index in words.indices { words[index] = generator.next() }
            }
            initialized = 1 << 20
        }
        let client = try TestClient(port: port)
        // Write from another thread: the echo flows back while we are still sending.
        let writer = Thread { try? client.send(payload) }
        writer.start()
        #expect(try client.receive(exactly: payload.count) == payload)
    }

    @Test("2,000 concurrent connections are accepted and each echoes its own bytes")
    func twoThousandConnections() throws {
        let limits = raiseOpenFileLimit()
        try #require(limits.soft >= 4_200, "the test needs 4,000 descriptors; soft limit is \(limits.soft)")
        let (server, events, port) = try startEchoServer()
        defer { #expect(stop(server)) }
        var clients: [TestClient] = []
        for _ in 0..<2_000 { clients.append(try TestClient(port: port)) }
        #expect(events.waitUntil { $0.opened.count == 2_000 })
        for (index, client) in clients.enumerated() {
            try client.send(withUnsafeBytes(of: UInt32(index).bigEndian) { Array($0) })
        }
        for (index, client) in clients.enumerated() {
            #expect(try client.receive(exactly: 4) == withUnsafeBytes(of: UInt32(index).bigEndian) { Array($0) })
        }
        // Both loops took a share (SO_REUSEPORT spreads by 4-tuple hash).
        let loopsUsed = Set(events.read { $0.opened.map(\.loopIndex) })
        #expect(loopsUsed == [0, 1])
    }

    @Test("peer hang-up (FIN or RST) closes the connection once and the handler sees it")
    func peerHangUp() throws {
        let (server, events, port) = try startEchoServer()
        defer { #expect(stop(server)) }
        let polite = try TestClient(port: port)
        let rude = try TestClient(port: port)
        #expect(events.waitUntil { $0.opened.count == 2 })
        polite.finish()
        rude.reset()
        #expect(events.waitUntil { $0.closed.count == 2 })
        #expect(Set(events.read { $0.closed }) == Set(events.read { $0.opened }))
        // A fresh connection still works after both.
        let next = try TestClient(port: port)
        try next.send("ok")
        #expect(try next.receive(exactly: 2) == Array("ok".utf8))
    }

    @Test("timer sweep: connectionTimerTick fires once the deadline passed, not before")
    func timerDeadlineFires() throws {
        var options = HandlerOptions()
        options.timerDelayMilliseconds = 60
        let (server, events, port) = try startEchoServer(tickMilliseconds: 10, options: options)
        defer { #expect(stop(server)) }
        let client = try TestClient(port: port)
        #expect(try client.receive(exactly: 1) == Array("T".utf8))
        let ticks = events.read { $0.timerTicks.map { ($0.1, $0.2) } }
        try #require(ticks.count == 1)
        let (deadline, now) = ticks[0]
        #expect(now >= deadline)
        #expect(now.milliseconds(since: deadline) < 1_000)  // fired within a tick or so, not at shutdown
        // The handler cleared its deadline, so no second "T" precedes this echo.
        try client.send("x")
        #expect(try client.receive(exactly: 1) == Array("x".utf8))
    }

    @Test("graceful shutdown: every handler says goodbye, output is flushed, then everyone is closed")
    func gracefulShutdown() throws {
        let (server, events, port) = try startEchoServer()
        let clients = try (0..<20).map { _ in try TestClient(port: port) }
        #expect(events.waitUntil { $0.opened.count == 20 })
        server.shutdown(graceMilliseconds: 5_000)
        for client in clients {
            #expect(try client.receiveUntilClosed() == Array("BYE".utf8))
        }
        #expect(server.waitUntilStopped(timeoutMilliseconds: 5_000))
        #expect(events.read { $0.shutdownRequests.count } == 20)
        #expect(events.read { $0.closed.count } == 20)
        // The listeners are closed too.
        #expect(throws: ClientError.self) { try TestClient(port: port) }
    }

    @Test("graceful shutdown is bounded: connections that ignore it are closed when the grace period ends")
    func shutdownGraceIsBounded() throws {
        var options = HandlerOptions()
        options.sayGoodbyeOnShutdown = false
        let (server, events, port) = try startEchoServer(options: options)
        let client = try TestClient(port: port)
        #expect(events.waitUntil { $0.opened.count == 1 })
        let started = Tick.monotonicNow()
        server.shutdown(graceMilliseconds: 200)
        #expect(try client.receiveUntilClosed() == [])
        #expect(server.waitUntilStopped(timeoutMilliseconds: 5_000))
        #expect(Tick.monotonicNow().milliseconds(since: started) >= 200)
        #expect(events.read { $0.shutdownRequests.count } == 1)
        #expect(events.read { $0.closed.count } == 1)
    }

    // SIGTERM is tested on the real binary (EngineBadInputTests: every client gets 1001, exit 0), not here: the
    // shutdown signal is process-wide, so raising it inside the test runner stops every in-process server of the
    // tests running beside this one.
}
