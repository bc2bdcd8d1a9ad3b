import Glibc
import HeraldNet
import Synchronization
import Testing

extension ServerTests {
    /// What the peer's socket holds right now, without waiting or taking it.
    private static func bytesWaiting(on fd: Int32) -> Int {
        var buffer = [UInt8](repeating: 0, count: 256)
        return max(recv(fd, &buffer, buffer.count, Int32(MSG_PEEK | MSG_DONTWAIT)), 0)
    }

    @Test("Write path: flushEarly sends a connection's queue inside the pass (the peer holds it before the task returns), and what is queued after still goes out at the pass's end")
    func flushEarlySendsBeforeThePassEnds() throws {
        let (server, events, port) = try startEchoServer(threads: 1)
        defer { #expect(stop(server)) }
        // One at a time, so the first handle is the first client's.
        let early = try TestClient(port: port)
        #expect(events.waitUntil { $0.opened.count == 1 })
        let late = try TestClient(port: port)
        #expect(events.waitUntil { $0.opened.count == 2 })
        let handles = events.read { $0.opened }
        let loop = server.group.loops[0]
        // Seen from inside the task: bytes on each peer's socket after the writes, before the loop's own flush.
        let seen = Mutex<(early: Int, late: Int)?>(nil)
        loop.execute {
            guard let first = loop.connection(for: handles[0]), let second = loop.connection(for: handles[1]) else { return }
            first.write(Array("early".utf8))
            second.write(Array("late".utf8))
            loop.flushEarly(first)
            first.write(Array("+after".utf8))
            seen.withLock { $0 = (Self.bytesWaiting(on: early.fd), Self.bytesWaiting(on: late.fd)) }
        }
        #expect(waitFor { seen.withLock { $0 } != nil })
        let inside = seen.withLock { $0 }
        #expect(inside?.early == 5, "flushEarly's bytes were on the wire during the pass")
        #expect(inside?.late == 0, "a queue that was not flushed early waits for the pass's end")
        #expect(try early.receive(exactly: 11) == Array("early+after".utf8))
        #expect(try late.receive(exactly: 4) == Array("late".utf8))
    }
}
