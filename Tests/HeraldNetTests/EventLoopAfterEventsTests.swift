import Glibc
import HeraldNet
import Synchronization
import Testing

/// `onceEventsHandled`: a consumer on another thread is woken once for everything a loop pass produced, not per item.
@Suite("HeraldNet event loop: work after the events of a pass")
struct EventLoopAfterEventsTests {
    private final class Token {}

    @Test("Event loop: work waits until the pass's tasks are all run, runs once per token, and a token may wait again next pass")
    func runsOncePerTokenAfterThePass() throws {
        let group = try LoopGroup(threads: 1)
        defer { group.shutdown() }
        let loop = group.loops[0]
        let record = Mutex<[String]>([])
        let (first, second) = (Token(), Token())
        let (a, b) = (ObjectIdentifier(first), ObjectIdentifier(second))
        // Both tasks are posted while the loop is held inside an earlier task, so they are taken from the inbox in
        // one pass (posted to an idle loop, the first could be taken alone before the second arrives).
        let holding = Mutex(false)
        let released = Mutex(false)
        loop.execute {
            holding.withLock { $0 = true }
            while !released.withLock({ $0 }) { sched_yield() }
        }
        try waitUntil { holding.withLock { $0 } }
        loop.execute {
            loop.onceEventsHandled(a) { record.withLock { $0.append("a once") } }
            loop.onceEventsHandled(a) { record.withLock { $0.append("a twice") } }
            record.withLock { $0.append("task 1") }
        }
        loop.execute {
            loop.onceEventsHandled(b) { record.withLock { $0.append("b") } }
            loop.onceEventsHandled(a) { record.withLock { $0.append("a thrice") } }
            record.withLock { $0.append("task 2") }
        }
        released.withLock { $0 = true }
        try waitUntil { record.withLock { $0.count } >= 4 }
        #expect(record.withLock { $0 } == ["task 1", "task 2", "a once", "b"])
        loop.execute { loop.onceEventsHandled(a) { record.withLock { $0.append("a next pass") } } }
        try waitUntil { record.withLock { $0.count } >= 5 }
        #expect(record.withLock { $0.last } == "a next pass")
        withExtendedLifetime((first, second)) {}
    }

    private struct TimedOut: Error {}

    private func waitUntil(_ condition: () -> Bool) throws {
        for _ in 0..<500 {
            if condition() { return }
            usleep(10_000)
        }
        throw TimedOut()
    }
}
