import Glibc
import HeraldNet
import Testing

/// Connections are edge-triggered in epoll: an event reports bytes that arrived since the last one, so whatever the
/// loop leaves in a socket must be read without waiting for another event.
extension ServerTests {
    @Test("epoll edge-triggered: bytes sent while reading was paused are read when it resumes, with no new arrival")
    func bytesWaitingWhilePausedAreReadOnResume() throws {
        var options = HandlerOptions()
        options.onRead = { connection in connection.pauseReading() }  // after each echo
        let (server, events, port) = try startEchoServer(threads: 1, options: options)
        defer { #expect(stop(server)) }
        let client = try TestClient(port: port)
        #expect(events.waitUntil { $0.opened.count == 1 })
        let handle = events.read { $0.opened[0] }
        let loop = server.group.loops[0]
        try client.send("a")
        #expect(try client.receive(exactly: 1) == Array("a".utf8))
        // On loopback `send` has put the bytes in the server's socket when it returns: they wait there, unreported.
        try client.send("bc")
        loop.execute { loop.connection(for: handle)?.resumeReading() }
        #expect(try client.receive(exactly: 2) == Array("bc".utf8))
    }

    @Test("epoll edge-triggered: a read that fills the loop's buffer is followed by another without a new event")
    func aFullReadIsReadAgain() throws {
        let (server, events, port) = try startEchoServer(threads: 1, maxQueuedBytes: 64 << 20)
        defer { #expect(stop(server)) }
        let client = try TestClient(port: port)
        #expect(events.waitUntil { $0.opened.count == 1 })
        // Several read buffers' worth, sent before the server reads any: one event for all of it.
        let bytes = (0..<(300 << 10)).map { UInt8(truncatingIfNeeded: $0 &* 11 &+ 3) }
        try client.send(bytes)
        #expect(try client.receive(exactly: bytes.count) == bytes)
    }
}
