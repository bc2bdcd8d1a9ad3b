import CLinux
import Glibc

/// Socket setup helpers. Every descriptor is created non-blocking and close-on-exec in the same call
/// (SOCK_NONBLOCK | SOCK_CLOEXEC), so there is no window where a forked child could inherit it.
enum Socket {
    /// Sets an integer socket option.
    static func setOption(_ fd: Int32, level: Int32, name: Int32, value: Int32, call: StaticString) throws(NetError) {
        var value = value
        try blockingSyscall(call) { setsockopt(fd, level, name, &value, socklen_t(MemoryLayout<Int32>.size)) }
    }

    /// Creates a listening TCP socket bound to `address`.
    ///
    /// SO_REUSEADDR lets a restarted server bind while old connections sit in TIME_WAIT; SO_REUSEPORT
    /// lets every loop own a listener on the same port, so the kernel spreads accepts across loops and
    /// no accepted descriptor ever has to cross threads.
    static func listen(on address: SocketAddress, backlog: Int32) throws(NetError) -> Int32 {
        let fd = try blockingSyscall("socket") {
            socket(address.family, CLINUX_SOCK_STREAM | CLINUX_SOCK_NONBLOCK | CLINUX_SOCK_CLOEXEC, 0)
        }
        do {
            try setOption(fd, level: SOL_SOCKET, name: SO_REUSEADDR, value: 1, call: "setsockopt(SO_REUSEADDR)")
            try setOption(fd, level: SOL_SOCKET, name: SO_REUSEPORT, value: 1, call: "setsockopt(SO_REUSEPORT)")
            try blockingSyscall("bind") { address.withSockAddr { bind(fd, $0, $1) } }
            try blockingSyscall("listen") { Glibc.listen(fd, backlog) }
        } catch {
            closeDescriptor(fd)
            throw error
        }
        return fd
    }

    /// Fails with EADDRINUSE when something already listens on `address`, even a process that set SO_REUSEPORT too.
    ///
    /// Our own listeners share their port through SO_REUSEPORT, and so would a second server started by the same user
    /// on the same port: the kernel would split the connections between the two, and a forgotten server in another
    /// terminal would answer half the clients. A socket without SO_REUSEPORT cannot join such a group, so binding one
    /// first (SO_REUSEADDR only, so connections in TIME_WAIT from a previous run do not count) tells a taken port
    /// from a free one.
    static func requireFree(host: String, port: UInt16) throws(NetError) {
        let address = try SocketAddress(host: host, port: port)
        let fd = try blockingSyscall("socket") {
            socket(address.family, CLINUX_SOCK_STREAM | CLINUX_SOCK_CLOEXEC, 0)
        }
        defer { closeDescriptor(fd) }
        try setOption(fd, level: SOL_SOCKET, name: SO_REUSEADDR, value: 1, call: "setsockopt(SO_REUSEADDR)")
        do {
            try blockingSyscall("bind") { address.withSockAddr { bind(fd, $0, $1) } }
        } catch where error.errno == EADDRINUSE {
            throw NetError(errno: EADDRINUSE, call: "bind to \(host):\(port) (another server, perhaps another herald-server, listens there)")
        }
    }
}
