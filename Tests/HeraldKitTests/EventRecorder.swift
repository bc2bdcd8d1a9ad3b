import Foundation
import HeraldKit
import Synchronization

/// A session's events as they came, for a test to wait on: one task reads the stream, tests look at what it kept.
final class EventRecorder: Sendable {
    let session: HeraldSession
    private let log = EventLog()
    private let reader = Mutex<Task<Void, Never>?>(nil)

    /// Starts reading `session`'s events and connects it.
    init(_ session: HeraldSession) {
        self.session = session
        let task = Task { [log] in
            for await event in session.events { log.events.withLock { $0.append(event) } }
        }
        reader.withLock { $0 = task }
        session.connect()
    }

    deinit { reader.withLock { $0?.cancel() } }

    var events: [HeraldEvent] { log.events.withLock { $0 } }
    /// How many events came so far: pass it to ``wait(_:after:timeout:_:)`` to look only at later ones.
    var mark: Int { log.events.withLock(\.count) }

    /// The first event after `mark` that `matches`, waiting for it up to `timeout`.
    ///
    /// The reading task and this wait share the tests' task pool, which other suites' blocking waits can hold for many
    /// seconds on a 2-core machine: the deadline is generous (what a test measures, such as how soon a session notices
    /// a frozen server, it measures on a thread of its own), and an event that arrived while this wait was not running
    /// is still looked for once more after the deadline, after the reader had a chance to run.
    @discardableResult
    func wait(_ what: String, after mark: Int = 0, timeout: Duration = .seconds(60),
              _ matches: @Sendable (HeraldEvent) -> Bool) async throws -> HeraldEvent {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let found = log.events.withLock({ $0.dropFirst(mark).first(where: matches) }) { return found }
            try await Task.sleep(for: .milliseconds(10))
        }
        try await Task.sleep(for: .milliseconds(200))
        if let found = log.events.withLock({ $0.dropFirst(mark).first(where: matches) }) { return found }
        throw RecorderTimeout(description: "no \(what) within \(timeout); events: \(events)")
    }

    /// Waits until the stream is live.
    func waitOnline(after mark: Int = 0, timeout: Duration = .seconds(60)) async throws {
        try await wait("online", after: mark, timeout: timeout) { $0 == .connection(.online) }
    }

    /// The messages received, by server id.
    func messages(withId id: String) -> [Message] {
        events.compactMap { if case .message(let message) = $0, message.id == id { message } else { nil } }
    }
}

/// The events, shared by the reading task and the tests.
final class EventLog: Sendable {
    let events = Mutex<[HeraldEvent]>([])
}

struct RecorderTimeout: Error, CustomStringConvertible {
    let description: String
}

extension HeraldEvent {
    var message: Message? { if case .message(let message) = self { message } else { nil } }
    var toast: ToastPresentation? { if case .toastShown(let toast) = self { toast } else { nil } }
}
