import Foundation
import Glibc
import HeraldTestSupport
import Testing

extension EndToEnd.LockedPhone {
    /// 40 blocking connections to 127.0.0.1:`port` that never send a byte (each accepted by the client as it comes).
    static func idleConnections(to port: Int, count: Int) throws -> [Int32] {
        try (0..<count).map { _ in
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = in_port_t(UInt16(port).bigEndian)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            guard connected == 0 else {
                close(fd)
                throw IdleConnectionError(code: errno)
            }
            return fd
        }
    }

    struct IdleConnectionError: Error { var code: Int32 }

    @Test("P1 past a crowd: 40 idle local connections to a locked phone's own push endpoint do not keep the server's push out")
    func pushArrivesPastIdleConnections() throws {
        let world = try Self.world()
        let alice = try world.connect("alice")
        try world.createUser("bob")
        let c = try world.dm(alice, "bob")
        let phone = try Self.lockedPhone(world, "bob")
        let listening = try #require(phone.stderrLines.first { $0.contains("push endpoint listening on http://127.0.0.1:") })
        let port = try #require(listening.split(separator: ":").last.flatMap { Int($0.prefix { $0.isNumber }) })
        let idle = try Self.idleConnections(to: port, count: 40)
        defer { idle.forEach { _ = close($0) } }
        let mark = phone.mark
        let m = try world.send(alice, c, "through the crowd")
        let push = try phone.waitEvent("push", after: mark, timeout: .seconds(10))
        #expect(push.string("message") == m)
    }
}
