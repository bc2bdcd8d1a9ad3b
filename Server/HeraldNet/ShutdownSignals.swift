import CLinux
import Glibc

/// SIGINT/SIGTERM wiring: the handler only records the signal and writes to an eventfd
/// (both async-signal-safe, in C); all real work happens on the thread that waits (``wait(timeoutMilliseconds:)``). SIGPIPE is
/// ignored process-wide as a second line of defence behind MSG_NOSIGNAL.
///
/// Create one per process (a later one takes over the handler).
public final class ShutdownSignals: Sendable {
    private let wakeFD: Int32

    /// Installs the handlers.
    public init() throws(NetError) {
        let fd = try blockingSyscall("eventfd") { eventfd(0, Int32(EFD_NONBLOCK | EFD_CLOEXEC)) }
        guard clinux_install_shutdown_handlers(fd) == 0 else {
            let code = clinux_errno()
            closeDescriptor(fd)
            throw NetError(errno: code, call: "sigaction")
        }
        wakeFD = fd
    }

    /// The last SIGINT/SIGTERM received, or nil if none yet.
    public var receivedSignal: Int32? {
        let signal = clinux_shutdown_signal()
        return signal == 0 ? nil : signal
    }

    /// Blocks up to `timeoutMilliseconds` (-1: no limit) for SIGINT or SIGTERM; nil on timeout.
    public func wait(timeoutMilliseconds: Int32) -> Int32? {
        if let signal = receivedSignal { return signal }
        var descriptor = pollfd(fd: wakeFD, events: Int16(POLLIN), revents: 0)
        _ = try? syscall("poll") { poll(&descriptor, 1, timeoutMilliseconds) }
        var counter: UInt64 = 0
        _ = try? syscall("read(eventfd)") { Glibc.read(wakeFD, &counter, 8) }
        return receivedSignal
    }
}
