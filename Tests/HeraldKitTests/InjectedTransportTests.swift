import Foundation
import Glibc
import HeraldKit
import HeraldTestSupport
import Synchronization
import Testing

/// An app's own byte stream under the session (as an Apple app would bring one on the Network framework): here a
/// blocking TCP socket with a reader thread, which dials the real server wherever the configuration points.
final class ThreadedSocketTransport: HeraldTransport {
    /// Where the connections really go.
    let port: Int
    /// How many connections were asked for, and how many bytes the server sent over them.
    let counts = Mutex((connects: 0, bytesIn: 0))

    init(port: Int) {
        self.port = port
    }

    func connect(host: String, port requested: Int, secure: Bool, events: TransportEvents) -> any TransportConnection {
        counts.withLock { $0.connects += 1 }
        let connection = ThreadedSocketConnection()
        let port = port
        Thread.detachNewThread {
            connection.run(port: port, events: events) { count in self.counts.withLock { $0.bytesIn += count } }
        }
        return connection
    }
}

final class ThreadedSocketConnection: TransportConnection {
    private let descriptor = Mutex<Int32>(-1)

    /// Connects, reports, and reads until the connection ends; on the connection's own thread.
    func run(port: Int, events: TransportEvents, counted: (Int) -> Void) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard fd >= 0, connected == 0 else {
            events.closed(error: "connect failed: errno \(errno)")
            if fd >= 0 { Glibc.close(fd) }
            return
        }
        descriptor.withLock { $0 = fd }
        events.opened()
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count > 0 {
                counted(count)
                events.received(Array(buffer[0..<count]))
            } else {
                if count < 0, errno == EINTR { continue }
                events.closed(error: count == 0 ? nil : "recv failed: errno \(errno)")
                break
            }
        }
        descriptor.withLock { $0 = -1 }
        Glibc.close(fd)
    }

    func send(_ bytes: [UInt8]) {
        descriptor.withLock { fd in
            var offset = 0
            while fd >= 0, offset < bytes.count {
                let written = bytes[offset...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                if written < 0, errno == EINTR { continue }
                guard written > 0 else { return }
                offset += written
            }
        }
    }

    func close() {
        // The reader thread sees the end and closes the descriptor.
        descriptor.withLock { if $0 >= 0 { _ = shutdown($0, Int32(SHUT_RDWR)) } }
    }
}

@Suite("HeraldKit over an app's own transport", .timeLimit(.minutes(2)))
struct InjectedTransportTests {
    @Test("a session runs over the transport the app injects: online, a message each way, a clean disconnect; the library's own socket is not used")
    func sessionRunsOverTheInjectedTransport() async throws {
        let server = try TestServer()
        // Nothing listens on port 1: only the injected transport, which dials the real server, can bring Alice online.
        var configuration = HeraldConfiguration(server: "ws://127.0.0.1:1", token: try server.token("alice"))
        let transport = ThreadedSocketTransport(port: server.port)
        configuration.transport = transport
        let alice = EventRecorder(try HeraldSession(configuration: configuration))
        let bob = EventRecorder(try SessionEndToEndTests.session(server, "bob"))
        try await alice.waitOnline()
        try await bob.waitOnline()

        let conversation = try await alice.session.directConversation(with: "bob")
        let id = try alice.session.send("over the app's transport", to: conversation)
        let sent = try await alice.wait("own message") { $0.message?.clientMessageId == id }.message
        try await bob.wait("message") { $0.message?.id == sent?.id && $0.message?.text == "over the app's transport" }
        let reply = try bob.session.send("and back", to: conversation)
        let replied = try await bob.wait("own reply") { $0.message?.clientMessageId == reply }.message
        try await alice.wait("reply") { $0.message?.id == replied?.id }

        let counts = transport.counts.withLock { $0 }
        #expect(counts.connects >= 1 && counts.bytesIn > 0, "the session's bytes went over the injected transport: \(counts)")
        await alice.session.disconnect()
        try await alice.wait("stopped") { $0 == .connection(.stopped(.disconnected)) }
        await bob.session.disconnect()
    }
}
