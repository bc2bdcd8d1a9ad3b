import Foundation
import Glibc
import HeraldBytes
import HeraldNet
import Synchronization
import Testing

extension ServerTests {
    @Test("fan-out: one SharedBytes sent from another thread reaches 100 connections exactly once each")
    func fanOutToHundredConnections() throws {
        let (server, events, port) = try startEchoServer()
        defer { #expect(stop(server)) }
        let clients = try (0..<100).map { _ in try TestClient(port: port) }
        #expect(events.waitUntil { $0.opened.count == 100 })
        let handles = events.read { $0.opened }
        let frame = SharedBytes(Array("broadcast #1: the same bytes for everyone".utf8))
        let sent = Mutex(false)
        let sender = Thread {
            server.send(frame, to: handles)
            sent.withLock { $0 = true }
        }
        sender.start()
        #expect(waitFor { sent.withLock { $0 } })
        for client in clients {
            #expect(try client.receive(exactly: frame.count) == frame.bytes)
            // If the frame had been queued twice, its second copy would arrive before this echo.
            try client.send("!")
            #expect(try client.receive(exactly: 1) == Array("!".utf8))
        }
    }

    @Test("Event loop: a handle whose descriptor was reused by a newer connection is dropped, not delivered")
    func staleHandleIsDropped() throws {
        let (server, events, port) = try startEchoServer(threads: 1)
        defer { #expect(stop(server)) }
        var first: TestClient? = try TestClient(port: port)
        #expect(events.waitUntil { $0.opened.count == 1 })
        let firstHandle = events.read { $0.opened[0] }
        first = nil  // closes the client socket
        #expect(events.waitUntil { $0.closed.count == 1 })
        _ = first
        let second = try TestClient(port: port)
        #expect(events.waitUntil { $0.opened.count == 2 })
        let freshHandle = events.read { $0.opened[1] }
        // Linux hands out the lowest free descriptor, so the server usually reuses the number. Tests running beside
        // this one in the same process may take it first; then the stale handle is the fresh descriptor with the
        // generation before it, which is the same situation.
        let staleHandle = freshHandle.fd == firstHandle.fd
            ? firstHandle
            : ConnectionHandle(loopIndex: freshHandle.loopIndex, fd: freshHandle.fd, generation: freshHandle.generation &- 1)
        #expect(freshHandle.generation != staleHandle.generation)
        server.send(SharedBytes(Array("stale".utf8)), to: [staleHandle])
        server.send(SharedBytes(Array("fresh".utf8)), to: [freshHandle])
        #expect(try second.receive(exactly: 5) == Array("fresh".utf8))
        try second.send("?")
        #expect(try second.receive(exactly: 1) == Array("?".utf8))
    }

    @Test("Write path: a peer that stops reading is closed at the queue cap while another keeps receiving")
    func slowConsumerIsClosedAtCap() throws {
        let cap = 256 << 10
        let (server, events, port) = try startEchoServer(threads: 1, maxQueuedBytes: cap)
        defer { #expect(stop(server)) }
        let slow = try TestClient(port: port, receiveBufferSize: 4096)
        #expect(events.waitUntil { $0.opened.count == 1 })
        let fast = try TestClient(port: port)
        #expect(events.waitUntil { $0.opened.count == 2 })
        let (slowHandle, fastHandle) = events.read { ($0.opened[0], $0.opened[1]) }

        // The fast peer drains continuously on its own thread.
        let fastReceived = Mutex(0)
        let reader = Thread {
            while let chunk = try? fast.receiveSome(), !chunk.isEmpty {
                fastReceived.withLock { $0 += chunk.count }
            }
        }
        reader.start()

        let frame = SharedBytes([UInt8](repeating: 0x5A, count: 64 << 10))
        var framesSent = 0
        var slowClosed = false
        while !slowClosed, framesSent < 2_000 {
            server.send(frame, to: [slowHandle, fastHandle])
            framesSent += 1
            // Pace on the fast reader so only the slow peer's queue can grow.
            let expected = framesSent * frame.count
            #expect(waitFor { fastReceived.withLock { $0 } == expected })
            slowClosed = events.read { $0.closed.contains(slowHandle) }
        }
        #expect(slowClosed, "slow peer still open after \(framesSent) frames")
        #expect(!events.read { $0.closed.contains(fastHandle) })
        // The slow peer gets what the kernel had buffered, then the close.
        _ = try slow.receiveUntilClosed()
        // And the fast one still works.
        let (probeEcho, _) = (try TestClient(port: port), ())
        try probeEcho.send("alive")
        #expect(try probeEcho.receive(exactly: 5) == Array("alive".utf8))
    }
}
