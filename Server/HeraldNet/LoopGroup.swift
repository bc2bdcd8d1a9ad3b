import Glibc
import HeraldBytes
import Synchronization

/// N event loops, one thread each. Connections are spread over the loops by the kernel
/// (each loop has its own SO_REUSEPORT listener); other threads reach a connection through its loop.
///
/// ```swift
/// let group = try LoopGroup(threads: 4)
/// defer { group.shutdown() }
/// ```
public final class LoopGroup: Sendable {
    /// The number of online cores: the default loop count.
    public static var defaultThreadCount: Int { max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))) }

    /// The loops, indexed by `EventLoop.index` (and `ConnectionHandle.loopIndex`).
    public let loops: [EventLoop]
    private let threads: Mutex<[pthread_t]>

    /// Creates `threads` loops and starts a thread for each.
    ///
    /// - Parameters:
    ///   - threads: Number of loops; defaults to the core count.
    ///   - tickMilliseconds: Initial sweep period; a server attached later may make it finer.
    ///   - readBufferSize: Size of each loop's single read buffer.
    public init(threads: Int = LoopGroup.defaultThreadCount, tickMilliseconds: Int = 100, readBufferSize: Int = 64 << 10) throws(NetError) {
        var loops: [EventLoop] = []
        for index in 0..<max(1, threads) {
            loops.append(try EventLoop(index: index, tickMilliseconds: tickMilliseconds, readBufferSize: readBufferSize))
        }
        var started: [pthread_t] = []
        for loop in loops {
            do {
                started.append(try spawnThread(named: "herald-loop-\(loop.index)") { loop.run() })
            } catch {
                for (loop, thread) in zip(loops, started) {
                    loop.requestStop()
                    pthread_join(thread, nil)
                }
                throw error
            }
        }
        self.loops = loops
        self.threads = Mutex(started)
    }

    /// Fan-out from any thread: enqueues the same `frame` (no copies) on every handle's connection.
    ///
    /// Handles are grouped by loop and each loop gets ONE task. Handles whose connection has closed
    /// (or whose descriptor now belongs to a newer connection) are skipped silently.
    public func send(_ frame: SharedBytes, to handles: [ConnectionHandle]) {
        if loops.count == 1 {
            let loop = loops[0]
            loop.execute { loop.deliver(frame, to: handles) }
            return
        }
        for (index, batch) in handles.groupedByLoop(loopCount: loops.count, loopIndex: \.loopIndex).enumerated() where !batch.isEmpty {
            let loop = loops[index]
            loop.execute { loop.deliver(frame, to: batch) }
        }
    }

    /// Stops every loop (closing whatever connections remain, handlers see `connectionDidClose`) and
    /// joins the threads. Idempotent. Must not be called from a loop thread.
    public func shutdown() {
        precondition(!loops.contains { $0.inEventLoop }, "LoopGroup.shutdown() called on one of its own loop threads")
        let toJoin = threads.withLock { threads in
            defer { threads.removeAll() }
            return threads
        }
        guard !toJoin.isEmpty else { return }
        for loop in loops { loop.requestStop() }
        for thread in toJoin { pthread_join(thread, nil) }
    }
}
