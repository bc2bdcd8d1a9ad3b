@testable import HeraldClient
import Testing

/// The client's handshake with a refusing server (sans-IO, bytes in): the reason in the 401's body reaches the event,
/// whether the body comes with the head, in a later read, or is cut short by the connection's end.
@Suite("herald: a refused upgrade carries the server's reason")
struct UpgradeRefusalTests {
    static let body = "token expired\n"
    static let head = "HTTP/1.1 401 Unauthorized\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n"

    static func client() throws -> ClientWebSocket {
        let address = try ServerAddress.parse("ws://127.0.0.1:1").get()
        return ClientWebSocket(address: address, token: "t", compression: nil)
    }

    static func explanation(_ events: [ClientWebSocket.Event]) -> String?? {
        guard events.count == 1, case .rejected(let status, _, let explanation) = events[0], status == 401 else { return .none }
        return .some(explanation)
    }

    @Test("the body in the same read as the head")
    func sameRead() throws {
        var socket = try Self.client()
        #expect(Self.explanation(socket.receive(Array((Self.head + Self.body).utf8)[...], now: 0)) == "token expired")
    }

    @Test("the body in a later read: nothing is reported until Content-Length bytes came")
    func laterRead() throws {
        var socket = try Self.client()
        #expect(socket.receive(Array(Self.head.utf8)[...], now: 0).isEmpty)
        #expect(socket.receive(Array("token ".utf8)[...], now: 0).isEmpty)
        #expect(Self.explanation(socket.receive(Array("expired\n".utf8)[...], now: 0)) == "token expired")
    }

    @Test("a body cut short by the connection's end is reported with what came; no body at all gives no explanation")
    func cutShort() throws {
        var socket = try Self.client()
        #expect(socket.receive(Array((Self.head + "token").utf8)[...], now: 0).isEmpty)
        #expect(Self.explanation(socket.connectionEnded()) == "token")
        var bare = try Self.client()
        #expect(bare.receive(Array("HTTP/1.1 401 Unauthorized\r\nContent-Length: 0\r\n\r\n".utf8)[...], now: 0) == [
            .rejected(status: 401, reason: "handshake failed with HTTP 401: expected 101 Switching Protocols, got 401 Unauthorized", explanation: nil),
        ])
    }

    @Test("terminal control characters in the body (escape sequences) are dropped; only the first line, at most 200 characters, is kept")
    func sanitised() throws {
        let hostile = "\u{1B}[2Jbad\u{07} token\u{9B}\nsecond line\n"
        var socket = try Self.client()
        let response = "HTTP/1.1 401 Unauthorized\r\nContent-Length: \(hostile.utf8.count)\r\n\r\n" + hostile
        #expect(Self.explanation(socket.receive(Array(response.utf8)[...], now: 0)) == "[2Jbad token")
        let long = String(repeating: "x", count: 400)
        var chatty = try Self.client()
        let longResponse = "HTTP/1.1 401 Unauthorized\r\nContent-Length: \(long.utf8.count)\r\n\r\n" + long
        #expect(Self.explanation(chatty.receive(Array(longResponse.utf8)[...], now: 0)) == String(repeating: "x", count: 200) + "…")
    }
}
