import Glibc

/// A failed system call: the `errno` it left and the name of the call, so a log line says
/// exactly what the kernel refused (`bind failed: Address already in use (errno 98)`).
public struct NetError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The `errno` value the call failed with.
    public var errno: Int32
    /// The system call (or library function) that failed, e.g. `"accept4"`.
    public var call: String

    /// Creates an error for `call` failing with `errno`.
    public init(errno: Int32, call: String) {
        self.errno = errno
        self.call = call
    }

    public var description: String {
        "\(call) failed: \(String(cString: strerror(errno))) (errno \(errno))"
    }
}
