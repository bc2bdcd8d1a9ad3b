import Glibc

/// A small local file read whole, with a size limit: the client's token and config files. A file past the limit is
/// refused instead of read into memory (a path pointing at a device or a huge file is not one of ours).
enum SmallFile {
    enum Failure: Error, Equatable {
        /// `open` found nothing at the path (ENOENT, or a path through something that is not a directory).
        case missing(cause: String)
        /// `open` or `read` failed otherwise.
        case unreadable(cause: String)
        case tooLarge
    }

    /// The bytes of the file at `path`, at most `maxBytes`.
    static func read(_ path: String, maxBytes: Int) throws(Failure) -> [UInt8] {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        if fd < 0 {
            let cause = String(cString: strerror(errno))
            throw errno == ENOENT || errno == ENOTDIR ? .missing(cause: cause) : .unreadable(cause: cause)
        }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            if count < 0 { throw .unreadable(cause: String(cString: strerror(errno))) }
            if count == 0 { return bytes }
            bytes += buffer[0..<count]
            if bytes.count > maxBytes { throw .tooLarge }
        }
    }
}
