import Glibc

/// A failed call in the test's own client code.
struct ClientError: Error, CustomStringConvertible {
    var errno: Int32
    var call: String
    var description: String { "\(call) failed with errno \(errno)" }
}

/// A plain blocking TCP client, the simplest possible peer: nothing of HeraldNet is reused, so the
/// server is tested against the kernel's behaviour rather than against itself. Every receive has a
/// timeout so a broken server fails the test instead of hanging it.
final class TestClient: Sendable {
    let fd: Int32

    /// Connects to 127.0.0.1:`port`.
    /// - Parameter receiveBufferSize: SO_RCVBUF set before connecting (a small one makes a slow reader).
    init(port: UInt16, receiveBufferSize: Int32? = nil, receiveTimeoutSeconds: Int = 10) throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw ClientError(errno: errno, call: "socket") }
        self.fd = fd
        if var size = receiveBufferSize {
            setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        var timeout = timeval(tv_sec: receiveTimeoutSeconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let status = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard status == 0 else {
            let code = errno
            Glibc.close(fd)
            throw ClientError(errno: code, call: "connect")
        }
    }

    deinit { Glibc.close(fd) }

    func send(_ bytes: [UInt8]) throws {
        var sent = 0
        while sent < bytes.count {
            let result = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress! + sent, $0.count - sent, Int32(MSG_NOSIGNAL)) }
            if result < 0 {
                if errno == EINTR { continue }
                throw ClientError(errno: errno, call: "send")
            }
            sent += result
        }
    }

    func send(_ text: String) throws { try send(Array(text.utf8)) }

    /// Reads exactly `count` bytes, or throws (timeout, reset, or EOF reported as errno 0).
    func receive(exactly count: Int) throws -> [UInt8] {
        var buffer = [UInt8](repeating: 0, count: count)
        var received = 0
        while received < count {
            let result = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress! + received, count - received, 0) }
            if result == 0 { throw ClientError(errno: 0, call: "recv (EOF after \(received) bytes)") }
            if result < 0 {
                if errno == EINTR { continue }
                throw ClientError(errno: errno, call: "recv")
            }
            received += result
        }
        return buffer
    }

    /// Reads up to `maximum` bytes in one call: returns what arrived ([] means EOF).
    func receiveSome(maximum: Int = 64 << 10) throws -> [UInt8] {
        var buffer = [UInt8](repeating: 0, count: maximum)
        while true {
            let result = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress!, maximum, 0) }
            if result >= 0 { return Array(buffer.prefix(result)) }
            if errno == EINTR { continue }
            throw ClientError(errno: errno, call: "recv")
        }
    }

    /// Reads until the server closes; returns everything read before EOF. A reset also counts as closed.
    func receiveUntilClosed() throws -> [UInt8] {
        var all: [UInt8] = []
        while true {
            let chunk: [UInt8]
            do {
                chunk = try receiveSome()
            } catch let error as ClientError where error.errno == ECONNRESET {
                return all
            }
            if chunk.isEmpty { return all }
            all += chunk
        }
    }

    /// Closes with an RST instead of a FIN (SO_LINGER 0), like a crashed peer.
    func reset() {
        var linger = linger(l_onoff: 1, l_linger: 0)
        setsockopt(fd, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<linger>.size))
        shutdown(fd, Int32(SHUT_RDWR))
    }

    /// Half-closes (FIN) without releasing the descriptor (deinit does that).
    func finish() { shutdown(fd, Int32(SHUT_WR)) }
}
