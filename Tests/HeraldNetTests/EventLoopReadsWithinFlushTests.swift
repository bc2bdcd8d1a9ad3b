import Glibc
import HeraldNet
import Synchronization
import Testing

extension ServerTests {
    /// Receivers with queued bytes, a sender whose bytes are already waiting, and a loop that never ticks (the tick
    /// would wake a loop that went to sleep by mistake): a flush long enough to stop for reads more than once.
    private static let receiverCount = 200

    /// What the peer's socket holds right now, without waiting or taking it.
    private static func waiting(on fd: Int32) -> Int {
        var buffer = [UInt8](repeating: 0, count: 16)
        return max(recv(fd, &buffer, buffer.count, Int32(MSG_PEEK | MSG_DONTWAIT)), 0)
    }

    /// Starts a server whose reads call `onRead`, connects the receivers and then the sender, and runs one task that
    /// queues "x" for every receiver and sends the sender's bytes, so they arrive while the loop flushes.
    private static func flushWhileTheSenderWrites(
        onRead: @escaping @Sendable (Connection, [Int32]) -> Void
    ) throws -> (server: TCPServer, receivers: [TestClient], sender: TestClient) {
        let receiverFDs = Mutex<[Int32]>([])
        var options = HandlerOptions()
        options.echo = false
        options.onRead = { connection in onRead(connection, receiverFDs.withLock { $0 }) }
        let (server, events, port) = try startEchoServer(threads: 1, tickMilliseconds: 60_000, options: options)
        var receivers: [TestClient] = []
        for _ in 0..<receiverCount { receivers.append(try TestClient(port: port)) }
        #expect(events.waitUntil { $0.opened.count == receiverCount })
        let sender = try TestClient(port: port)
        #expect(events.waitUntil { $0.opened.count == receiverCount + 1 })
        receiverFDs.withLock { $0 = receivers.map(\.fd) }
        let handles = events.read { Array($0.opened.prefix(receiverCount)) }
        let loop = server.group.loops[0]
        loop.execute {
            for handle in handles { loop.connection(for: handle)?.write(Array("x".utf8)) }
            _ = Glibc.send(sender.fd, "hi", 2, 0)
        }
        return (server, receivers, sender)
    }

    @Test("Write path: a long flush handles what arrived meanwhile: the sender's bytes are read after some receivers are written and before the rest")
    func longFlushReadsBetweenWrites() throws {
        let writtenWhenRead = Mutex<Int?>(nil)
        let (server, receivers, sender) = try Self.flushWhileTheSenderWrites { _, receiverFDs in
            let written = receiverFDs.filter { Self.waiting(on: $0) > 0 }.count
            writtenWhenRead.withLock { $0 = $0 ?? written }
        }
        defer { withExtendedLifetime(sender) { #expect(stop(server)) } }
        #expect(waitFor { writtenWhenRead.withLock { $0 } != nil })
        let written = writtenWhenRead.withLock { $0 } ?? -1
        #expect((1..<Self.receiverCount).contains(written), "read after \(written) of \(Self.receiverCount) receivers were written")
        for receiver in receivers { #expect(try receiver.receive(exactly: 1) == Array("x".utf8)) }
    }

    @Test("Write path: a task posted by a read within a flush still runs (its wakeup is not consumed where the task cannot run)")
    func taskPostedWithinAFlushRuns() throws {
        let ran = Atomic(false)
        let (server, receivers, sender) = try Self.flushWhileTheSenderWrites { connection, _ in
            connection.loop.execute { ran.store(true, ordering: .relaxed) }
        }
        defer { withExtendedLifetime(sender) { #expect(stop(server)) } }
        #expect(waitFor(timeoutMilliseconds: 5_000) { ran.load(ordering: .relaxed) }, "the loop slept on a posted task")
        for receiver in receivers { #expect(try receiver.receive(exactly: 1) == Array("x".utf8)) }
    }
}
