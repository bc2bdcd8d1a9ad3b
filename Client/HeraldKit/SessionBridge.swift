import Glibc
import HeraldClient
import HeraldProtocol
import HeraldRules
import Synchronization

/// The session's side of the client loop: typed commands go in through a queue and a wake-up pipe, the core's typed
/// answers and events come back and become the library's public types. The loop runs on its own thread; apps call from any.
final class SessionBridge: ClientFrontEnd, @unchecked Sendable {
    // @unchecked: everything two threads touch is inside `shared`; the pipe's descriptors never change after init.

    struct Shared {
        /// Inputs the loop has not taken yet.
        var inputs: [ClientInput] = []
        /// Callers waiting for their command's answer, in command order (answers come in that order).
        var waiters: [CheckedContinuation<CommandAnswer.Outcome, any Error>] = []
        var state: ConnectionState = .idle
        var pending: [PendingMessage]
        /// A line the loop gave as fatal (a refused token): the stop reason's text.
        var lastFailure = ""
    }

    let shared: Mutex<Shared>
    let events: AsyncStream<HeraldEvent>.Continuation
    private let store: (any PendingMessageStore)?
    private let wakeRead: Int32
    private let wakeWrite: Int32

    /// The user the session runs as (mentions, own clientMessageIds).
    private let user: String

    init(user: String, pending: [PendingMessage], store: (any PendingMessageStore)?, events: AsyncStream<HeraldEvent>.Continuation) throws(HeraldError) {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { throw .invalidConfiguration("cannot make a wake-up pipe: errno \(errno)") }
        // Neither end may block the loop or the app (a full pipe already wakes the loop), nor leak into a child.
        for end in ends {
            _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
        }
        wakeRead = ends[0]
        wakeWrite = ends[1]
        self.user = user
        self.store = store
        self.events = events
        var shared = Shared(pending: pending)
        // What an earlier run left unsent goes out first, with the ids it was given.
        shared.inputs = pending.map(\.input)
        self.shared = Mutex(shared)
    }

    deinit {
        close(wakeRead)
        close(wakeWrite)
    }

    // MARK: - App side

    /// Queues a command and waits for its answer: what an `ok` carries, or the client's state for `state`.
    func perform(_ command: ClientCommand) async throws(HeraldError) -> CommandAnswer.Outcome {
        do {
            return try await withCheckedThrowingContinuation { continuation in
                let queued = shared.withLock { shared -> Bool in
                    if case .stopped = shared.state { return false }
                    shared.inputs.append(.command(command))
                    shared.waiters.append(continuation)
                    return true
                }
                if queued { wake() } else { continuation.resume(throwing: HeraldError.stopped) }
            }
        } catch let error as HeraldError {
            throw error
        } catch {
            throw .stopped
        }
    }

    /// Saves `message` as pending, then queues it.
    func send(_ message: PendingMessage) throws(HeraldError) {
        try shared.withLock { (shared) throws(HeraldError) in
            if case .stopped = shared.state { throw .stopped }
            try store?.save(shared.pending + [message])
            shared.pending.append(message)
            shared.inputs.append(message.input)
        }
        wake()
    }

    /// Wakes the loop so it takes what is queued.
    func wake() {
        var byte: UInt8 = 1
        _ = write(wakeWrite, &byte, 1)  // a full pipe already wakes the loop
    }

    // MARK: - Loop side (ClientFrontEnd)

    var inputDescriptor: Int32 { wakeRead }
    let inputEnded = false

    func input(_ bytes: ArraySlice<UInt8>) -> [ClientInput] {
        shared.withLock { shared in
            defer { shared.inputs = [] }
            return shared.inputs
        }
    }

    func answer(_ answer: CommandAnswer) {
        guard let waiter = shared.withLock({ $0.waiters.isEmpty ? nil : $0.waiters.removeFirst() }) else { return }
        if case .error(let code, let message) = answer.outcome {
            waiter.resume(throwing: HeraldError.refused(code: code, message: message))
        } else {
            waiter.resume(returning: answer.outcome)
        }
    }

    func event(_ event: ClientEvent) {
        switch event {
        case .connected: return changeState(to: .online)
        case .disconnected(let reason): return changeState(to: .offline(reason: reason))
        default: break
        }
        guard let event = EventConversion.event(event, me: user) else { return }
        if case .sendFailed(let id, _, _) = event { settle(id) }
        events.yield(event)
    }

    func stored(clientMessageId: String, message: String) {
        settle(clientMessageId)
        events.yield(.stored(clientMessageId: clientMessageId, message: message))
    }

    /// The server stored (or refused for good) a pending message: it leaves the store.
    private func settle(_ clientMessageId: String) {
        shared.withLock { shared in
            guard let index = shared.pending.firstIndex(where: { $0.clientMessageId == clientMessageId }) else { return }
            shared.pending.remove(at: index)
            // A failed save leaves the message in the file: a restart sends it again, and the server stores it once.
            try? store?.save(shared.pending)
        }
    }

    private func changeState(to state: ConnectionState) {
        let changed = shared.withLock { shared -> Bool in
            guard shared.state != state else { return false }
            if case .stopped = shared.state { return false }
            shared.state = state
            return true
        }
        if changed { events.yield(.connection(state)) }
    }

    func connectionChanged(_ status: ConnectionStatus) {
        switch status {
        case .connecting: changeState(to: .connecting)
        case .reconnecting(_, let reason): changeState(to: .offline(reason: reason))
        case .locked: changeState(to: .offline(reason: "locked"))
        }
    }

    func fail(_ text: String) { shared.withLock { $0.lastFailure = text } }
    func log(_ text: String) {}
    func render(_ core: ClientCore, now: Instant) {}
    func nextRedraw(now: Instant) -> Instant? { nil }
    func finish() {}
    func takeFollowUps() -> [ClientInput] { [] }
    func geometry() -> ScreenGeometry? { nil }
    func takeComposerChange() -> Bool? { nil }

    /// The loop ended with `exitCode` (ClientExitCode): the session stops; waiting callers get ``HeraldError/stopped``.
    func loopEnded(exitCode: Int32) {
        let (waiters, reason) = shared.withLock { shared in
            let reason: StopReason = switch exitCode {
            case ClientExitCode.success.rawValue: .disconnected
            case ClientExitCode.unauthorized.rawValue: .unauthorized(shared.lastFailure)
            default: .failed(shared.lastFailure)
            }
            shared.state = .stopped(reason)
            defer { shared.waiters = [] }
            return (shared.waiters, reason)
        }
        for waiter in waiters { waiter.resume(throwing: HeraldError.stopped) }
        events.yield(.connection(.stopped(reason)))
        events.finish()
    }
}

