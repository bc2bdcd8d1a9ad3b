import Glibc
import Synchronization

/// SIGHUP wiring for certificate reload (the handler only counts; the work happens elsewhere).
///
/// The handler increments an atomic counter (lock-free, async-signal-safe) and nothing else. A thread that is
/// awake anyway (the server's shutdown wait polls every 100 ms) compares ``count`` with the value it last saw and
/// reloads. Installing also keeps SIGHUP from terminating the process, its default action.
///
/// ```swift
/// HangUpSignal.install()
/// var seen = HangUpSignal.count
/// // later, periodically:
/// if HangUpSignal.count != seen { seen = HangUpSignal.count; try? tls.reload() }
/// ```
public enum HangUpSignal {
    private static let received = Atomic<Int>(0)

    /// Installs the handler (idempotent) and unblocks SIGHUP on the calling thread, so threads started afterwards
    /// (the loops) can take it: a parent may have started us with it blocked (the mask survives exec).
    public static func install() {
        _ = received.load(ordering: .relaxed)  // initialise the global before a signal can touch it
        signal(SIGHUP) { _ in HangUpSignal.received.wrappingAdd(1, ordering: .relaxed) }
        var signals = sigset_t()
        sigemptyset(&signals)
        sigaddset(&signals, SIGHUP)
        pthread_sigmask(SIG_UNBLOCK, &signals, nil)
    }

    /// How many SIGHUPs arrived since ``install()``.
    public static var count: Int { received.load(ordering: .relaxed) }
}
