import Glibc

extension BenchRun {
    /// Descriptors a run needs beyond its sockets: stdio, the epoll set, /proc reads, Foundation's own.
    static let spareDescriptors = 64

    /// Makes room for `connections` sockets: raises the soft RLIMIT_NOFILE to the hard limit and, when the hard limit
    /// is too low, the hard limit too (only root may); fails naming the count when it stays below what is needed,
    /// so that a large run stops before it starts rather than with EMFILE after tens of thousands of connects.
    static func raiseOpenFileLimit(connections: Int) throws(BenchError) {
        let needed = rlim_t(connections + spareDescriptors)
        let resource = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
        var limit = rlimit()
        guard getrlimit(resource, &limit) == 0 else { throw BenchError("getrlimit RLIMIT_NOFILE: \(String(cString: strerror(errno)))") }
        if limit.rlim_max < needed {
            var raised = rlimit(rlim_cur: needed, rlim_max: needed)
            if setrlimit(resource, &raised) == 0 { limit = raised }
        }
        if limit.rlim_cur < limit.rlim_max {
            limit.rlim_cur = limit.rlim_max
            _ = setrlimit(resource, &limit)
            _ = getrlimit(resource, &limit)
        }
        guard limit.rlim_cur >= needed else {
            throw BenchError(
                "\(connections) connections need \(needed) open files, but the limit is \(limit.rlim_cur) (hard \(limit.rlim_max)): "
                    + "as root run `ulimit -n \(needed)` first (root needs CAP_SYS_RESOURCE: in a container, raise nofile where it is started)")
        }
    }
}
