import Glibc

/// A failed socket call, with the call's name and errno.
public struct SocketError: Error, Sendable, CustomStringConvertible {
    public var call: String
    public var code: Int32
    public var description: String { "\(call): \(String(cString: strerror(code)))" }
}

/// A non-blocking TCP client socket. The loop polls `fd`; this type only wraps the calls.
final class TCPSocket {
    private(set) var fd: Int32

    private init(fd: Int32) { self.fd = fd }

    deinit { close() }

    /// Resolves `host` and starts a non-blocking connect; completion shows as POLLOUT, then `connectResult()`.
    static func connect(host: String, port: Int) throws(SocketError) -> TCPSocket {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &list)
        guard status == 0, let first = list else { throw SocketError(call: "getaddrinfo(\(host))", code: status == EAI_SYSTEM ? errno : EHOSTUNREACH) }
        defer { freeaddrinfo(list) }
        var lastError = SocketError(call: "connect", code: ECONNREFUSED)
        var entry: UnsafeMutablePointer<addrinfo>? = first
        while let info = entry {
            entry = info.pointee.ai_next
            let fd = socket(info.pointee.ai_family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            guard fd >= 0 else {
                lastError = SocketError(call: "socket", code: errno)
                continue
            }
            var one: Int32 = 1
            _ = setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
            var result: Int32
            repeat { result = Glibc.connect(fd, info.pointee.ai_addr, info.pointee.ai_addrlen) } while result < 0 && errno == EINTR
            if result == 0 || errno == EINPROGRESS { return TCPSocket(fd: fd) }
            lastError = SocketError(call: "connect", code: errno)
            Glibc.close(fd)
        }
        throw lastError
    }

    /// After POLLOUT on a connecting socket: nil when connected, else the error.
    func connectResult() -> SocketError? {
        var code: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        guard getsockopt(fd, SOL_SOCKET, SO_ERROR, &code, &length) == 0 else { return SocketError(call: "getsockopt", code: errno) }
        return code == 0 ? nil : SocketError(call: "connect", code: code)
    }

    /// Reads what is available: bytes, an empty array at end of stream, nil when nothing is ready.
    func read(into buffer: inout [UInt8]) throws(SocketError) -> Int? {
        while true {
            let count = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if count >= 0 { return count }
            if errno == EINTR { continue }
            if errno == EAGAIN || errno == EWOULDBLOCK { return nil }
            throw SocketError(call: "read", code: errno)
        }
    }

    /// Writes as much of `bytes` as the socket takes and removes it from the front.
    func write(_ bytes: inout [UInt8]) throws(SocketError) {
        while !bytes.isEmpty {
            let count = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if count > 0 {
                bytes.removeFirst(count)
                continue
            }
            if count < 0 && errno == EINTR { continue }
            if count < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) { return }
            throw SocketError(call: "send", code: count < 0 ? errno : EPIPE)
        }
    }

    func close() {
        if fd >= 0 { Glibc.close(fd) }
        fd = -1
    }
}
