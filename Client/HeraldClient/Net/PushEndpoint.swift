import Foundation
import Glibc
import HeraldCrypto
import HeraldProtocol
import HeraldRules
import HeraldWebSocket

/// The client's own Web Push endpoint, as a browser's push service would be: a loopback HTTP listener the server POSTs
/// encrypted pushes to (RFC 8030), which it decrypts with the subscription's keys (RFC 8291). It keeps listening while
/// the client is locked; that is the point.
final class PushEndpoint {
    /// What a received push turned into.
    enum Received {
        case payload(JSONValue)
        case undecryptable(String)
    }

    let port: Int
    /// The subscription the server registers: this endpoint's URL and the keys pushes are encrypted for.
    let subscription: PushRegistration
    private let listener: Int32
    private let key: P256PrivateKey
    private let authSecret: [UInt8]
    private var connections: [Int32: PushEndpointRequest] = [:]
    /// A push service opens a handful of connections and sends at once: 32 at most, each with 10 s for its request;
    /// a new one past the limit closes the oldest, so idle connections never keep the real pushes out.
    private var deadlines = ConnectionDeadlines<Int32>(limit: 32, deadline: .seconds(10))

    /// Listens on 127.0.0.1:`port` (0: any free port) with a new key pair and auth secret.
    init(port: Int) throws {
        key = try P256PrivateKey.generate()
        authSecret = SecureRandom.bytes(16)
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw SocketError(call: "socket", code: errno) }
        var one: Int32 = 1
        _ = setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        guard bound == 0, listen(fd, 16) == 0 else {
            let code = errno
            Glibc.close(fd)
            throw SocketError(call: "bind/listen 127.0.0.1:\(port)", code: code)
        }
        var actual = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &actual) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
        listener = fd
        self.port = Int(UInt16(bigEndian: actual.sin_port))
        subscription = PushRegistration(
            provider: "webpush", endpoint: "http://127.0.0.1:\(self.port)/push", p256dh: Base64URL.encode(key.publicKey), auth: Base64URL.encode(authSecret))
    }

    deinit {
        for fd in connections.keys { Glibc.close(fd) }
        Glibc.close(listener)
    }

    /// The descriptors to poll for reading.
    var descriptors: [Int32] { [listener] + connections.keys.sorted() }

    /// When the oldest open connection's time to deliver its request runs out, if one is open.
    var nextDeadline: Instant? { deadlines.nextDeadline }

    /// Closes the connections whose time to deliver a request has run out at `now`.
    func expire(now: Instant) {
        for fd in deadlines.expire(now: now) { drop(fd) }
    }

    /// `fd` is readable: accepts, or reads and answers a complete request. Returns the pushes that came in.
    func readable(_ fd: Int32, now: Instant) -> [Received] {
        if fd == listener {
            while true {
                let client = accept(listener, nil, nil)
                guard client >= 0 else { break }
                _ = fcntl(client, F_SETFL, fcntl(client, F_GETFL) | O_NONBLOCK)
                _ = fcntl(client, F_SETFD, FD_CLOEXEC)
                for oldest in deadlines.admit(client, now: now) { drop(oldest) }
                connections[client] = PushEndpointRequest()
            }
            return []
        }
        guard var request = connections[fd] else { return [] }
        var buffer = [UInt8](repeating: 0, count: 8192)
        let count = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
        if count < 0 && (errno == EAGAIN || errno == EINTR) { return [] }
        guard count > 0 else {
            drop(fd)
            return []
        }
        request.append(buffer[..<count])
        switch request.parse() {
        case .needMore:
            connections[fd] = request
            return []
        case .refused(let status, let reason):
            answer(fd, status: status, reason: reason)
            return []
        case .complete(let head, let body):
            guard head.method == "POST" else {
                answer(fd, status: 405, reason: "POST pushes here")
                return []
            }
            guard head.headers["Content-Encoding"]?.lowercased() == "aes128gcm" else {
                answer(fd, status: 415, reason: "Content-Encoding must be aes128gcm")
                return [.undecryptable("a push without aes128gcm content coding")]
            }
            do {
                let plaintext = try WebPushEncryption.decrypt(body, receiverKey: key, authSecret: authSecret)
                guard let payload = try? JSONDecoder().decode(JSONValue.self, from: Data(plaintext)) else {
                    answer(fd, status: 400, reason: "the payload is not JSON")
                    return [.undecryptable("a push whose payload is not JSON")]
                }
                answer(fd, status: 201, reason: "Created")
                return [.payload(payload)]
            } catch {
                answer(fd, status: 400, reason: "cannot decrypt")
                return [.undecryptable("a push that does not decrypt: \(error)")]
            }
        }
    }

    private func answer(_ fd: Int32, status: Int, reason: String) {
        let response = Array("HTTP/1.1 \(status) \(reason)\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".utf8)
        _ = response.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
        drop(fd)
    }

    private func drop(_ fd: Int32) {
        deadlines.remove(fd)
        guard connections.removeValue(forKey: fd) != nil else { return }
        Glibc.close(fd)
    }
}
