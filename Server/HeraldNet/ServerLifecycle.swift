import Dispatch
import Synchronization

/// Cross-thread bookkeeping of one server's shutdown: how many loops still hold its connections, and a
/// semaphore that releases `waitUntilStopped` when the last one reports.
final class ServerLifecycle: Sendable {
    private struct State {
        var loopsRunning = 0
        var stopped = false
    }

    private let state = Mutex(State())
    private let stoppedSignal = DispatchSemaphore(value: 0)

    func begin(loops: Int) {
        state.withLock { $0.loopsRunning = loops }
    }

    /// Marks a server that never started as stopped.
    func markStoppedWithoutLoops() {
        let signal = state.withLock { state -> Bool in
            guard !state.stopped, state.loopsRunning == 0 else { return false }
            state.stopped = true
            return true
        }
        if signal { stoppedSignal.signal() }
    }

    func loopDidStop() {
        let signal = state.withLock { state -> Bool in
            state.loopsRunning -= 1
            guard state.loopsRunning <= 0, !state.stopped else { return false }
            state.stopped = true
            return true
        }
        if signal { stoppedSignal.signal() }
    }

    var isStopped: Bool { state.withLock { $0.stopped } }

    /// Blocks until stopped, or until `timeoutMilliseconds` passed (nil: no limit). Returns `isStopped`.
    func wait(timeoutMilliseconds: Int?) -> Bool {
        if isStopped { return true }
        let deadline: DispatchTime = timeoutMilliseconds.map { .now() + .milliseconds($0) } ?? .distantFuture
        guard stoppedSignal.wait(timeout: deadline) == .success else { return isStopped }
        stoppedSignal.signal()  // pass the wakeup on to any other waiter
        return true
    }
}
