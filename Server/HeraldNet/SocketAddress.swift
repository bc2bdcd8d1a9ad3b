import CLinux
import Glibc

/// A numeric IPv4 or IPv6 socket address (no DNS: the server binds to literal addresses).
enum SocketAddress {
    case v4(sockaddr_in)
    case v6(sockaddr_in6)

    /// Parses a literal address ("127.0.0.1", "::1", "0.0.0.0"; "localhost" means 127.0.0.1).
    init(host: String, port: UInt16) throws(NetError) {
        let literal = host == "localhost" ? "127.0.0.1" : host
        var ipv4 = in_addr()
        if inet_pton(AF_INET, literal, &ipv4) == 1 {
            self = .v4(sockaddr_in(sin_family: sa_family_t(AF_INET), sin_port: port.bigEndian, sin_addr: ipv4, sin_zero: (0, 0, 0, 0, 0, 0, 0, 0)))
            return
        }
        var ipv6 = in6_addr()
        if inet_pton(AF_INET6, literal, &ipv6) == 1 {
            self = .v6(sockaddr_in6(sin6_family: sa_family_t(AF_INET6), sin6_port: port.bigEndian, sin6_flowinfo: 0, sin6_addr: ipv6, sin6_scope_id: 0))
            return
        }
        throw NetError(errno: EINVAL, call: "inet_pton(\(host))")
    }

    var family: Int32 {
        switch self {
        case .v4: AF_INET
        case .v6: AF_INET6
        }
    }

    /// Calls `body` with the address as a generic `sockaddr` pointer and its length.
    func withSockAddr<Result>(_ body: (UnsafePointer<sockaddr>, socklen_t) -> Result) -> Result {
        switch self {
        case .v4(var address):
            withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
        case .v6(var address):
            withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(MemoryLayout<sockaddr_in6>.size)) }
            }
        }
    }

    /// Formats an address the kernel filled in (from `accept4` or `getsockname`) as "ip:port" / "[ip]:port".
    static func describe(_ storage: UnsafePointer<sockaddr_storage>) -> String {
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
        switch Int32(storage.pointee.ss_family) {
        case AF_INET:
            return storage.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { address in
                var ip = address.pointee.sin_addr
                inet_ntop(AF_INET, &ip, &text, socklen_t(text.count))
                return "\(decodeCString(text)):\(UInt16(bigEndian: address.pointee.sin_port))"
            }
        case AF_INET6:
            return storage.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { address in
                var ip = address.pointee.sin6_addr
                inet_ntop(AF_INET6, &ip, &text, socklen_t(text.count))
                return "[\(decodeCString(text))]:\(UInt16(bigEndian: address.pointee.sin6_port))"
            }
        default:
            return "unknown"
        }
    }

    /// The port a socket is bound to (after binding port 0, this is the one the kernel chose).
    static func boundPort(of fd: Int32) throws(NetError) -> UInt16 {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        try blockingSyscall("getsockname") {
            withUnsafeMutablePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
            }
        }
        switch Int32(storage.ss_family) {
        case AF_INET:
            return withUnsafePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { UInt16(bigEndian: $0.pointee.sin_port) }
            }
        default:
            return withUnsafePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { UInt16(bigEndian: $0.pointee.sin6_port) }
            }
        }
    }
}

/// The text before the first NUL of a C string buffer filled by `inet_ntop`.
private func decodeCString(_ buffer: [CChar]) -> String {
    String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
}
