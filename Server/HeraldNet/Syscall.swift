import CLinux
import Glibc

/// The outcome of a non-blocking call: it did something, or the kernel said "try later".
///
/// EAGAIN is the normal state of a non-blocking socket, so it is a value here and never an error.
enum IOResult<Value> {
    case processed(Value)
    case wouldBlock
}

/// Runs one raw system call with the discipline every call in HeraldNet follows:
/// - EINTR is retried;
/// - EAGAIN/EWOULDBLOCK comes back as `.wouldBlock`;
/// - EBADF/EFAULT trap, because a closed descriptor or a bad pointer is a HeraldNet bug, never the peer's doing;
/// - anything else throws `NetError(errno:call:)` for the caller to decide (a reset peer, EMFILE, ...).
///
/// `body` returns the call's result; a negative value means failure with `errno` set.
@inline(__always)
func syscall<Result: BinaryInteger>(_ call: StaticString, _ body: () -> Result) throws(NetError) -> IOResult<Result> {
    while true {
        let result = body()
        if result >= 0 { return .processed(result) }
        let code = clinux_errno()
        switch code {
        case EINTR:
            continue
        case EAGAIN, EWOULDBLOCK:
            return .wouldBlock
        case EBADF, EFAULT:
            fatalError("\(call) failed with errno \(code): a bad descriptor or pointer is a HeraldNet bug")
        default:
            throw NetError(errno: code, call: "\(call)")
        }
    }
}

/// `syscall` for calls that cannot return EAGAIN (setup calls such as `bind` or `epoll_ctl`):
/// a `.wouldBlock` there is unexpected and reported as an error rather than silently ignored.
@inline(__always)
@discardableResult
func blockingSyscall<Result: BinaryInteger>(_ call: StaticString, _ body: () -> Result) throws(NetError) -> Result {
    switch try syscall(call, body) {
    case .processed(let value): return value
    case .wouldBlock: throw NetError(errno: EAGAIN, call: "\(call)")
    }
}

/// Closes a descriptor HeraldNet owns. Linux releases the descriptor even when `close` reports
/// EINTR, so it is never retried (a retry could close a descriptor another thread just got).
func closeDescriptor(_ fd: Int32) {
    if Glibc.close(fd) != 0 {
        let code = clinux_errno()
        if code == EBADF { fatalError("close(\(fd)) failed with EBADF: double close is a HeraldNet bug") }
    }
}
