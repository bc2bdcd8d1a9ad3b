import Glibc
@testable import HeraldClient
import HeraldRules
import Testing

/// The client's own Web Push endpoint (a loopback listener) cannot be shut by idle local connections: each has a
/// deadline for its request, and past the cap a new connection closes the oldest, so a push service's request is
/// always served.
@Suite("Push endpoint: idle local connections never keep the real pushes out", .serialized)
struct PushEndpointIdleTests {
    @Test("ConnectionDeadlines: past the limit the oldest is closed; a connection past its deadline expires; nextDeadline is the oldest's")
    func deadlinesRule() {
        var rule = ConnectionDeadlines<Int>(limit: 3, deadline: .seconds(10))
        #expect(rule.admit(1, now: Instant(milliseconds: 0)).isEmpty)
        #expect(rule.admit(2, now: Instant(milliseconds: 100)).isEmpty)
        #expect(rule.admit(3, now: Instant(milliseconds: 200)).isEmpty)
        #expect(rule.admit(4, now: Instant(milliseconds: 300)) == [1], "the oldest makes room")
        #expect(rule.nextDeadline == Instant(milliseconds: 10_100))
        rule.remove(2)
        #expect(rule.expire(now: Instant(milliseconds: 10_199)).isEmpty)
        #expect(rule.expire(now: Instant(milliseconds: 10_200)) == [3])
        #expect(rule.nextDeadline == Instant(milliseconds: 10_300))
        #expect(rule.expire(now: Instant(milliseconds: 20_000)) == [4])
        #expect(rule.nextDeadline == nil)
    }

    /// A blocking TCP connection to 127.0.0.1:`port` with a receive timeout.
    private func connectLocal(_ port: Int) throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        guard connected == 0 else { throw PushEndpointTestError.connect(errno) }
        var timeout = timeval(tv_sec: 2, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        return fd
    }

    enum PushEndpointTestError: Error { case connect(Int32) }

    /// What the peer of `fd` sent before it closed or went quiet ("" when it closed without a word).
    private func receive(_ fd: Int32) -> (text: String, closed: Bool) {
        var buffer = [UInt8](repeating: 0, count: 1024)
        let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        if count < 0 { return ("", false) }  // timed out: still open
        return (String(decoding: buffer[..<count], as: UTF8.self), count == 0)
    }

    /// One poll round of the runner: accepts and reads whatever is ready.
    private func serve(_ endpoint: PushEndpoint, now: Instant) -> [PushEndpoint.Received] {
        var received: [PushEndpoint.Received] = []
        var fds = endpoint.descriptors.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
        guard poll(&fds, nfds_t(fds.count), 200) > 0 else { return [] }
        for entry in fds where entry.revents != 0 { received += endpoint.readable(entry.fd, now: now) }
        return received
    }

    @Test("40 idle local connections, then a push service's request: it is answered; the idle ones are closed at their deadline")
    func idleConnectionsDoNotBlock() throws {
        let endpoint = try PushEndpoint(port: 0)
        let start = Instant(milliseconds: 1_000)
        var idle: [Int32] = []
        defer { idle.forEach { _ = close($0) } }
        for _ in 0..<40 {
            idle.append(try connectLocal(endpoint.port))
            _ = serve(endpoint, now: start)
        }
        #expect(endpoint.descriptors.count == 1 + 32, "the listener and the 32 newest")
        let push = try connectLocal(endpoint.port)
        defer { _ = close(push) }
        let request = "POST /push HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Encoding: aes128gcm\r\nContent-Length: 4\r\n\r\nxxxx"
        _ = request.withCString { send(push, $0, strlen($0), 0) }
        var received: [PushEndpoint.Received] = []
        for _ in 0..<20 where received.isEmpty { received += serve(endpoint, now: start + Milliseconds(100)) }
        #expect(received.count == 1, "the request was read and answered")
        let answer = receive(push)
        #expect(answer.text.hasPrefix("HTTP/1.1 400"), "answered, not shut out: \(answer.text.debugDescription)")

        // 10 s after their accept, the idle connections still open are closed.
        let stillOpen = idle.suffix(32)
        #expect(endpoint.nextDeadline == start + .seconds(10))
        endpoint.expire(now: start + .seconds(10))
        #expect(endpoint.descriptors.count == 1, "only the listener is left")
        for fd in stillOpen { #expect(receive(fd).closed, "an idle connection is closed at its deadline") }
    }
}
