import Glibc
import HeraldNet
import Synchronization
import Testing

extension ServerTests {
    @Test("Write path: writeNow sends at once what the kernel takes and queues the rest; bytes queued before it go first; all arrive whole and in order")
    func writeNowKeepsOrderAndQueuesTheRest() throws {
        let (server, events, port) = try startEchoServer(threads: 1, maxQueuedBytes: 64 << 20)
        defer { #expect(stop(server)) }
        // A small receive buffer: 16 MiB is more than the kernel's send buffer takes at once, so part of it is queued.
        let slow = try TestClient(port: port, receiveBufferSize: 4_096)
        #expect(events.waitUntil { $0.opened.count == 1 })
        let queuedFirst = try TestClient(port: port)
        #expect(events.waitUntil { $0.opened.count == 2 })
        let handles = events.read { $0.opened }
        let big = (0..<(16 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
        let loop = server.group.loops[0]
        loop.execute {
            guard let first = loop.connection(for: handles[0]), let second = loop.connection(for: handles[1]) else { return }
            big.withUnsafeBytes { loop.writeNow($0, on: first) }
            first.write(Array("tail".utf8))
            second.write(Array("queued ".utf8))
            Array("now".utf8).withUnsafeBytes { loop.writeNow($0, on: second) }
        }
        #expect(try slow.receive(exactly: big.count + 4) == big + Array("tail".utf8))
        #expect(try queuedFirst.receive(exactly: 10) == Array("queued now".utf8))
    }
}
