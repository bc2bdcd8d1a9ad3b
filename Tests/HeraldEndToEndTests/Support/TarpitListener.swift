import Foundation
import Glibc
import Synchronization

/// A TCP listener on a loopback address that accepts every connection and never answers (a tarpit: a host that takes
/// the connection and the request and then holds the sender), recording when each connection was accepted. Also
/// the witness that no connection was made at all, for addresses the server must never connect to.
final class TarpitListener: @unchecked Sendable {
    // @unchecked: the descriptors are set once; the accepted list is behind a Mutex.
    let host: String
    let port: Int
    private let listening: Int32
    private let state = State()
    private let thread: Thread
    private let loopEnded = DispatchSemaphore(value: 0)

    /// Listens on `host` (`127.0.0.x` or `::1`), any free port.
    init(host: String) throws {
        self.host = host
        let isV6 = host.contains(":")
        let descriptor = socket(isV6 ? AF_INET6 : AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw ListenerError("socket: errno \(errno)") }
        var yes: Int32 = 1
        setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var bound: Int32
        if isV6 {
            var address = sockaddr_in6()
            address.sin6_family = sa_family_t(AF_INET6)
            inet_pton(AF_INET6, host, &address.sin6_addr)
            bound = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in6>.size)) } }
        } else {
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr(host)
            bound = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        }
        guard bound == 0, listen(descriptor, 64) == 0 else {
            close(descriptor)
            throw ListenerError("bind/listen on \(host): errno \(errno)")
        }
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        _ = withUnsafeMutablePointer(to: &storage) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) } }
        port = withUnsafeBytes(of: storage) { bytes in Int(UInt16(bytes[2]) << 8 | UInt16(bytes[3])) }  // sin_port / sin6_port, network order
        listening = descriptor
        let state = self.state
        let loopEnded = self.loopEnded
        thread = Thread {
            defer { loopEnded.signal() }
            while !state.stopped.load(ordering: .relaxed) {
                var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
                guard poll(&poller, 1, 50) > 0 else { continue }
                let connection = accept(descriptor, nil, nil)
                // Kept open and never read or answered: the sender waits for an answer that never comes.
                if connection >= 0 { state.accepted.withLock { $0.append((Date(), connection)) } }
            }
        }
        thread.start()
    }

    deinit { stop() }

    func stop() {
        guard !state.stopped.exchange(true, ordering: .relaxed) else { return }
        _ = loopEnded.wait(timeout: .now() + 5)  // the accept loop polls every 50 ms, so it ends before the socket closes
        close(listening)
        for connection in state.accepted.withLock({ $0 }) { close(connection.descriptor) }
    }

    /// When each connection so far was accepted, oldest first.
    var connections: [Date] { state.accepted.withLock { $0.map(\.at) } }

    /// The URL of a Web Push endpoint on this listener, over http (the tests' loopback allowance).
    func endpoint(_ path: String) -> String {
        host.contains(":") ? "http://[\(host)]:\(port)/\(path)" : "http://\(host):\(port)/\(path)"
    }

    /// What the accept thread and the test share.
    private final class State: Sendable {
        let accepted = Mutex<[(at: Date, descriptor: Int32)]>([])
        let stopped = Atomic<Bool>(false)
    }

    struct ListenerError: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }
}
