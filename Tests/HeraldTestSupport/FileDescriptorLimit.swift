import Glibc

/// The test process's open-files limit (RLIMIT_NOFILE).
///
/// Tests that hold thousands of sockets raise the soft limit to the hard limit first, exactly as the server does
/// at start; an unprivileged process may raise its soft limit up to the hard one, never beyond.
public enum FileDescriptorLimit {
    /// The current soft limit.
    public static var current: Int {
        var limit = rlimit()
        guard getrlimit(resource, &limit) == 0 else { return 0 }
        return Int(clamping: limit.rlim_cur)
    }

    /// Raises the soft limit to the hard limit and returns the soft limit in force afterwards.
    @discardableResult
    public static func raiseToHardLimit() -> Int {
        var limit = rlimit()
        guard getrlimit(resource, &limit) == 0 else { return 0 }
        if limit.rlim_cur < limit.rlim_max {
            limit.rlim_cur = limit.rlim_max
            _ = setrlimit(resource, &limit)
        }
        return current
    }

    private static var resource: __rlimit_resource_t { __rlimit_resource_t(RLIMIT_NOFILE.rawValue) }
}
