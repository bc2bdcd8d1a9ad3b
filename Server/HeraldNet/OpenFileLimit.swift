import CLinux
import Glibc

/// Raises the soft RLIMIT_NOFILE to the hard limit (Redis `adjustOpenFilesLimit`): Debian's default
/// soft limit of 1024 is far below what thousands of sockets need. Call once at start.
///
/// - Returns: the limits in force afterwards (unchanged if raising was refused).
@discardableResult
public func raiseOpenFileLimit() -> (soft: rlim_t, hard: rlim_t) {
    var limit = rlimit()
    guard clinux_get_nofile_limit(&limit) == 0 else { return (0, 0) }
    if limit.rlim_cur < limit.rlim_max {
        var raised = limit
        raised.rlim_cur = limit.rlim_max
        if clinux_set_nofile_limit(&raised) == 0 { limit = raised }
    }
    return (limit.rlim_cur, limit.rlim_max)
}
