import Foundation
@testable import HeraldServer
import HeraldTestSupport
import Testing

/// HTTP/1.1 as the API speaks it (RFC 9112): keep-alive, pipelining, chunked bodies, limits.
@Suite("API: HTTP/1.1 keep-alive, bodies and limits", .serialized)
struct APIHTTPTests {
    @Test("RFC 9112 §9.3: two requests on one socket are both answered with Connection: keep-alive")
    func keepAlive() throws {
        let server = try InProcessAPIServer()
        defer { server.stop() }
        let client = try APIClient(port: server.port, key: server.key)
        let first = try client.request("POST", "/api/v1/users", json: #"{"id":"alice","name":"Alice"}"#)
        #expect(first.status == 201 && first.header("Connection") == "keep-alive")
        let second = try client.request("GET", "/api/v1/users/alice")
        #expect(second.status == 200 && second.object?["name"] as? String == "Alice")
    }

    @Test("RFC 9112 §9.3.2: pipelined requests sent in one write are answered in order")
    func pipelined() throws {
        let server = try InProcessAPIServer()
        defer { server.stop() }
        let client = try APIClient(port: server.port, key: server.key)
        var bytes: [UInt8] = []
        for n in 0..<5 { bytes += APIClient.requestBytes("POST", "/api/v1/users", json: #"{"id":"u\#(n)","name":"U\#(n)"}"#, key: server.key) }
        bytes += APIClient.requestBytes("GET", "/api/v1/users/u3", key: server.key)
        bytes += APIClient.requestBytes("GET", "/api/v1/health", key: nil)
        try client.raw.send(bytes)
        for n in 0..<5 {
            let response = try client.read()
            #expect(response.status == 201 && response.object?["id"] as? String == "u\(n)")
        }
        #expect(try client.read().object?["name"] as? String == "U3")
        #expect(try client.read().object?["status"] as? String == "ok")
    }

    @Test("Connection: close is honoured: the answer says close and the server closes the socket")
    func connectionClose() throws {
        let server = try InProcessAPIServer()
        defer { server.stop() }
        let client = try APIClient(port: server.port, key: nil)
        let response = try client.request("GET", "/api/v1/health", extraHeaders: [("Connection", "close")])
        #expect(response.status == 200 && response.header("Connection") == "close")
        try client.raw.waitForEOF(timeoutMilliseconds: 2_000)
        let old = try APIClient(port: server.port, key: nil)
        try old.raw.send(Array("GET /api/v1/health HTTP/1.0\r\n\r\n".utf8))
        #expect(try old.read().header("Connection") == "close", "HTTP/1.0 without keep-alive closes")
        try old.raw.waitForEOF(timeoutMilliseconds: 2_000)
    }

    @Test("RFC 9112 §7.1: a chunked body (with an extension and a trailer), sent a byte at a time, is decoded")
    func chunkedBody() throws {
        let server = try InProcessAPIServer()
        defer { server.stop() }
        let client = try APIClient(port: server.port, key: server.key)
        let json = #"{"id":"chunky","name":"Chunky Bacon"}"#.utf8
        let head = "POST /api/v1/users HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(server.key)\r\nTransfer-Encoding: chunked\r\n\r\n"
        let split = json.index(json.startIndex, offsetBy: 10)
        let first = Array(json[..<split]), rest = Array(json[split...])
        let body = Array("\(String(first.count, radix: 16));ext=1\r\n".utf8) + first + Array("\r\n\(String(rest.count, radix: 16).uppercased())\r\n".utf8) + rest
            + Array("\r\n0\r\nX-Trailer: yes\r\n\r\n".utf8)
        for byte in Array(head.utf8) + body { try client.raw.send([byte]) }
        let response = try client.read()
        #expect(response.status == 201 && response.object?["name"] as? String == "Chunky Bacon")
        #expect(try client.request("GET", "/api/v1/users/chunky").status == 200, "the connection stays usable after a chunked body")
    }

    @Test("RFC 9110 §10.1.1: Expect: 100-continue gets an interim 100 before the body is sent, then the answer")
    func expectContinue() throws {
        let server = try InProcessAPIServer()
        defer { server.stop() }
        let client = try APIClient(port: server.port, key: server.key)
        let json = #"{"id":"eve","name":"Eve"}"#
        try client.raw.send(Array("POST /api/v1/users HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(server.key)\r\nExpect: 100-continue\r\nContent-Length: \(json.utf8.count)\r\n\r\n".utf8))
        #expect(try client.read().status == 100)
        try client.raw.send(Array(json.utf8))
        #expect(try client.read().status == 201)
    }

    @Test("413 too_large for a body over the limit (Content-Length and chunked), then close")
    func bodyTooLarge() throws {
        let server = try InProcessAPIServer(api: APIOptions(maxBodySize: 1_000, rateLimitPerSecond: 0))
        defer { server.stop() }
        let big = #"{"id":"a","name":"\#(String(repeating: "x", count: 2_000))"}"#
        let client = try APIClient(port: server.port, key: server.key)
        let response = try client.request("POST", "/api/v1/users", json: big)
        #expect(response.status == 413 && response.errorCode == "too_large" && response.header("Connection") == "close")
        let chunked = try APIClient(port: server.port, key: server.key)
        try chunked.raw.send(Array("POST /api/v1/users HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n400\r\n\(String(repeating: "y", count: 1024))\r\n".utf8))
        let chunkedResponse = try chunked.read()
        #expect(chunkedResponse.status == 413 && chunkedResponse.errorCode == "too_large")
        try chunked.raw.waitForEOF(timeoutMilliseconds: 2_000)
    }

    @Test("431 headers_too_large for a head over 8 KiB; 400 for Transfer-Encoding with Content-Length (smuggling)")
    func headLimitsAndSmuggling() throws {
        let server = try InProcessAPIServer()
        defer { server.stop() }
        let client = try APIClient(port: server.port, key: server.key)
        let response = try client.request("GET", "/api/v1/health", extraHeaders: [("X-Filler", String(repeating: "f", count: 9_000))])
        #expect(response.status == 431 && response.errorCode == "headers_too_large")
        let smuggler = try APIClient(port: server.port, key: server.key)
        try smuggler.raw.send(Array("POST /api/v1/users HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n".utf8))
        #expect(try smuggler.read().status == 400)
        try smuggler.raw.waitForEOF(timeoutMilliseconds: 2_000)
    }

    @Test("The WebSocket upgrade still works on a connection after keep-alive API requests, and /healthz still closes")
    func upgradeAfterAPI() throws {
        let server = try InProcessAPIServer()
        defer { server.stop() }
        let client = try APIClient(port: server.port, key: server.key)
        #expect(try client.request("POST", "/api/v1/users", json: #"{"id":"alice","name":"Alice"}"#).status == 201)
        let token = try server.token("alice")
        #expect(try client.request("GET", "/api/v1/users/alice").status == 200)
        try client.raw.handshake(path: "/sync", extraHeaders: [("Authorization", "Bearer \(token)"), ("Sec-WebSocket-Protocol", "herald.v1")])
        try client.raw.sendText(#"{"id":1,"type":"sync"}"#)
        #expect(try client.raw.readMessage().text.contains(#""mode":"snapshot""#))
        let health = try APIClient(port: server.port, key: nil)
        #expect(try health.request("GET", "/healthz").header("Connection") == "close")
    }
}
