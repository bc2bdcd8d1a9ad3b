import Foundation
import Glibc
@testable import HeraldServer
import HeraldTestSupport
import HeraldWebSocket
import Logging
import Testing

/// Large requests read and not yet answered count against their user's input budget: once it is spent, a connection
/// with a request in flight stops reading (TCP holds the rest back), so pipelining on many connections cannot make the
/// server hold more than the budget plus about one request per connection. In process, on a route whose requests are
/// answered only when the test says.
@Suite("Security: request backlogs within the input budget", .serialized)
struct SecurityRequestBacklogTests {
    static let requestBytes = 100_000
    static let connections = 4
    static let perConnection = 8

    @Test("4 connections of one user pipelining 8 requests of 100 KB: at most the 2 MiB budget plus about one request each is held until answers come")
    func pipelinedRequestsWaitForTheBudget() throws {
        var options = HeraldServerOptions()
        options.port = 0
        options.threads = 1
        options.maxBufferedInputPerUser = 2 << 20
        let server = HeraldHTTPServer(options: options, logger: Logger(label: "backlog-test"))
        let received = Received()
        let users = server.userShares
        server.addWebSocketRoute("/b") { _ in
            guard let share = users.admit("mallory") else { return .reject(status: 429, message: "too many") }
            return .accept(subprotocol: nil) { session in
                session.chargeInput(to: share)
                session.limitUnansweredRequests(to: Self.perConnection)
                return received
            }
        }
        try server.start()
        let stopped = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            server.runUntilShutdown()
            stopped.signal()
        }
        defer {
            server.shutdown()
            stopped.wait()
        }
        let port = server.boundPort
        let request = RawWebSocketClient.frame(opcode: 0x1, payload: [UInt8](repeating: UInt8(ascii: "a"), count: Self.requestBytes))
        let clients = try (0..<Self.connections).map { _ in try RawWebSocketClient.connect(port: port, path: "/b") }
        let senders = DispatchGroup()
        for client in clients {
            let client = UncheckedClient(client)
            senders.enter()
            Thread.detachNewThread {
                defer { senders.leave() }
                for _ in 0..<Self.perConnection { try? client.value.send(request) }
            }
        }
        let budget = options.maxBufferedInputPerUser
        // Every connection gets at least its first request through, and the budget fills.
        #expect(Hardening.eventually { users.chargedInput(of: "mallory") > budget && received.sessions.count == Self.connections },
                "\(received.count) requests read, \(users.chargedInput(of: "mallory")) bytes charged")
        // Unanswered, the rest stay in the kernel: the server never reads all 32.
        let bound = budget / Self.requestBytes + Self.connections
        #expect(!Hardening.eventually(timeoutMs: 500) { received.count > bound }, "\(received.count) requests read, at most \(bound) expected")
        let charged = users.chargedInput(of: "mallory")
        // Past the budget each connection holds at most the request that crossed it, one read held back (64 KiB) and
        // the start of its next request.
        #expect(charged <= budget + Self.connections * 3 * Self.requestBytes, "\(charged) bytes charged to the user")
        #expect(server.inputBudget.chargedBytes == charged)

        // Answers release the budget and reading resumes until every request has been read; all answered, nothing
        // stays charged.
        var answered = 0
        #expect(Hardening.eventually(timeoutMs: 10_000) {
            let pending = received.handles.dropFirst(answered)
            answered += pending.count
            if !pending.isEmpty {
                server.send(messages: pending.map { (FanOutMessage.answer(OutgoingFrame.text(Array("ok".utf8))), [$0]) })
            }
            return answered == Self.connections * Self.perConnection
        }, "\(answered) answered")
        #expect(senders.wait(timeout: .now() + 10) == .success)
        #expect(Hardening.eventually { users.chargedInput(of: "mallory") == 0 && server.inputBudget.chargedBytes == 0 })
        for client in clients { client.close() }
    }

    /// The route's delegate: records which session sent each request, answers nothing.
    final class Received: WebSocketSessionDelegate, @unchecked Sendable {
        private let lock = NSLock()
        private var received: [SessionHandle] = []
        var route: String { "/b" }
        var count: Int { lock.withLock { received.count } }
        var handles: [SessionHandle] { lock.withLock { received } }
        var sessions: Set<SessionHandle> { lock.withLock { Set(received) } }
        func sessionDidReceiveText(_ session: WebSocketSession, _ text: UnsafeRawBufferPointer) {
            lock.withLock { received.append(session.handle) }
        }
        func sessionDidReceiveBinary(_ session: WebSocketSession, _ bytes: UnsafeRawBufferPointer) {}
        func sessionDidClose(_ session: WebSocketSession) {}
    }

    /// A client handed to one sender thread, which alone uses it until the test joins it.
    struct UncheckedClient: @unchecked Sendable {
        let value: RawWebSocketClient
        init(_ value: RawWebSocketClient) { self.value = value }
    }
}
