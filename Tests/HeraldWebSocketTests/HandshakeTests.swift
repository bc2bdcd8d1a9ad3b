import HeraldTestSupport
import HeraldWebSocket
import Testing

/// RFC 6455 §4: the opening handshake, SHA-1 (RFC 3174) and base64 underneath it.
@Suite("Opening handshake (RFC 6455 §4)")
struct HandshakeTests {
    @Test("RFC 3174 §7.3: SHA-1 test vectors", arguments: [
        ("abc", "A9993E364706816ABA3E25717850C26C9CD0D89D"),
        ("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", "84983E441C3BD26EBAAE4AA1F95129E5E54670F1"),
        ("", "DA39A3EE5E6B4B0D3255BFEF95601890AFD80709"),
        // 55 and 56 bytes straddle the padding boundary (one block vs two).
        (String(repeating: "a", count: 55), "C1C8BBDC22796E28C0E15163D20899B65621D65A"),
        (String(repeating: "a", count: 56), "C2DB330F6083854C99D4B5BFB6E8F29F201BE699"),
    ])
    func sha1Vectors(input: String, digest: String) {
        #expect(hexString(SHA1.hash(input.utf8)).replacingSpaces() == digest)
    }

    @Test("RFC 3174 §7.3: SHA-1 of one million 'a' (test 3), fed in uneven updates")
    func sha1Million() {
        var sha = SHA1()
        let chunk = [UInt8](repeating: UInt8(ascii: "a"), count: 1000)
        for _ in 0..<1000 { sha.update(chunk) }
        #expect(hexString(sha.finalize()).replacingSpaces() == "34AA973CD4C4DAA4F61EEB2BDBAD27316534016F")
    }

    @Test("RFC 4648 §10: base64 test vectors round-trip", arguments: [
        ("", ""), ("f", "Zg=="), ("fo", "Zm8="), ("foo", "Zm9v"), ("foob", "Zm9vYg=="), ("fooba", "Zm9vYmE="), ("foobar", "Zm9vYmFy"),
    ])
    func base64Vectors(plain: String, encoded: String) {
        #expect(Base64.encode(Array(plain.utf8)) == encoded)
        #expect(Base64.decode(encoded) == Array(plain.utf8))
    }

    @Test("RFC 4648: malformed base64 is rejected", arguments: ["Zg=", "Z===", "Zg==Zg==", "Zm9v!A==", "Zh==", "Zm9=", "=Zm9"])
    func base64Malformed(text: String) {
        #expect(Base64.decode(text) == nil)
    }

    @Test("RFC 6455 §1.3: the sample key dGhlIHNhbXBsZSBub25jZQ== accepts as s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")
    func rfcAcceptKey() {
        // The RFC's value (§1.3 and §4.2.2); "s3pPLMBiTxaQ9kBDGikXVlwo3Ss=" seen elsewhere is not it.
        #expect(WebSocketHandshake.acceptKey(for: "dGhlIHNhbXBsZSBub25jZQ==") == "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")
    }

    static let sampleRequest = """
        GET /chat?token=a%20b+c&x HTTP/1.1\r
        Host: server.example.com\r
        Upgrade: websocket\r
        Connection: keep-alive, Upgrade\r
        Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r
        Origin: http://example.com\r
        Sec-WebSocket-Protocol: chat, superchat\r
        Sec-WebSocket-Protocol: herald.v1\r
        Sec-WebSocket-Extensions: permessage-deflate; client_max_window_bits\r
        Sec-WebSocket-Version: 13\r
        \r

        """

    static func head(_ text: String) -> HTTPRequestHead? {
        var parser = HTTPRequestHeadParser()
        if case .complete(let head, _) = parser.parse(Array(text.utf8)) { return head }
        return nil
    }

    static func request(replacing name: String, with line: String?) -> String {
        var lines = sampleRequest.components(separatedByCRLF: ())
        if let index = lines.firstIndex(where: { $0.hasPrefix(name + ":") || $0.hasPrefix(name + " ") }) {
            if let line { lines[index] = line } else { lines.remove(at: index) }
        }
        return lines.joined(separator: "\r\n")
    }

    @Test("RFC 6455 §4.2.1: the RFC's sample upgrade is valid and yields key, subprotocols and extensions")
    func validUpgrade() throws {
        let head = try #require(Self.head(Self.sampleRequest))
        let request = try WebSocketHandshake.validateUpgrade(head).get()
        #expect(request.key == "dGhlIHNhbXBsZSBub25jZQ==")
        #expect(request.offeredSubprotocols == ["chat", "superchat", "herald.v1"])
        #expect(request.offeredExtensions == ["permessage-deflate; client_max_window_bits"])
        #expect(head.path == "/chat")
        #expect(head.query == ["token": "a b c", "x": ""])
        let response = String(decoding: WebSocketHandshake.serverResponse(for: request, subprotocol: "herald.v1", extensionsHeader: nil), as: UTF8.self)
        #expect(response == "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            + "Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\nSec-WebSocket-Protocol: herald.v1\r\n\r\n")
    }

    @Test("RFC 6455 §4.2.1: invalid upgrades are refused with 400", arguments: [
        ("missing key", request(replacing: "Sec-WebSocket-Key", with: nil)),
        ("key of 15 bytes", request(replacing: "Sec-WebSocket-Key", with: "Sec-WebSocket-Key: AAAAAAAAAAAAAAAAAAAA")),
        ("key not base64", request(replacing: "Sec-WebSocket-Key", with: "Sec-WebSocket-Key: not base64 at all!!")),
        ("POST", sampleRequest.replacingFirstLine("POST /chat HTTP/1.1")),
        ("HTTP/1.0", sampleRequest.replacingFirstLine("GET /chat HTTP/1.0")),
        ("no Upgrade header", request(replacing: "Upgrade", with: nil)),
        ("Upgrade: h2c", request(replacing: "Upgrade", with: "Upgrade: h2c")),
        ("Connection without upgrade", request(replacing: "Connection", with: "Connection: keep-alive")),
        ("no Host", request(replacing: "Host", with: nil)),
    ])
    func invalidUpgrade(name: String, text: String) throws {
        let head = try #require(Self.head(text), "\(name) should still parse as HTTP")
        switch WebSocketHandshake.validateUpgrade(head) {
        case .success: Issue.record("\(name) was accepted")
        case .failure(let rejection):
            #expect(rejection.status == 400, "\(name)")
            #expect(rejection.headers.isEmpty)
        }
    }

    @Test("RFC 6455 §4.2.2, §4.4: a wrong or missing Sec-WebSocket-Version gets 426 with Sec-WebSocket-Version: 13",
          arguments: ["Sec-WebSocket-Version: 8", "Sec-WebSocket-Version: 14", nil])
    func wrongVersion(line: String?) throws {
        let head = try #require(Self.head(Self.request(replacing: "Sec-WebSocket-Version", with: line)))
        guard case .failure(let rejection) = WebSocketHandshake.validateUpgrade(head) else {
            Issue.record("accepted version \(line ?? "none")")
            return
        }
        #expect(rejection.status == 426)
        let response = String(decoding: rejection.response, as: UTF8.self)
        #expect(response.hasPrefix("HTTP/1.1 426 Upgrade Required\r\n"))
        #expect(response.contains("\r\nSec-WebSocket-Version: 13\r\n"))
        #expect(response.contains("\r\nConnection: close\r\n"))
    }

    @Test("RFC 9110: rejection responses carry Content-Length and Connection: close")
    func rejectionResponseBytes() {
        let response = String(decoding: WebSocketHandshake.rejectionResponse(status: 400, reason: "bad"), as: UTF8.self)
        #expect(response == "HTTP/1.1 400 Bad Request\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: 4\r\nConnection: close\r\n\r\nbad\n")
    }

    @Test("RFC 6455 §4.1: the client request carries key, version 13 and offered subprotocols; header injection is stripped")
    func clientRequestBytes() {
        let bytes = WebSocketHandshake.clientRequest(host: "127.0.0.1:8080", path: "/sync?token=t", key: "dGhlIHNhbXBsZSBub25jZQ==",
                                                     subprotocols: ["herald.v1"], extraHeaders: [("X-Test", "a\r\nEvil: 1")])
        #expect(String(decoding: bytes, as: UTF8.self) == "GET /sync?token=t HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nUpgrade: websocket\r\n"
            + "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
            + "Sec-WebSocket-Protocol: herald.v1\r\nX-Test: aEvil: 1\r\n\r\n")
        // And the server side accepts exactly this request.
        var parser = HTTPRequestHeadParser()
        guard case .complete(let head, let consumed) = parser.parse(bytes) else { Issue.record("did not parse"); return }
        #expect(consumed == bytes.count)
        #expect((try? WebSocketHandshake.validateUpgrade(head).get())?.offeredSubprotocols == ["herald.v1"])
    }

    @Test("RFC 6455 §4.1: random client keys are base64 of 16 bytes and differ")
    func randomKeys() {
        let keys = (0..<16).map { _ in WebSocketHandshake.randomClientKey() }
        #expect(keys.allSatisfy { Base64.decode($0)?.count == 16 })
        #expect(Set(keys).count == 16)
    }

    static func response(_ text: String) -> HTTPResponseHead? {
        var parser = HTTPResponseHeadParser()
        if case .complete(let head, _) = parser.parse(Array(text.utf8)) { return head }
        return nil
    }

    @Test("RFC 6455 §4.1: the client validates the server's response")
    func clientValidatesResponse() throws {
        let key = "dGhlIHNhbXBsZSBub25jZQ=="
        let good = "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n"
        func check(_ text: String, offered: [String] = ["herald.v1"]) throws -> Result<String?, HandshakeFailure> {
            WebSocketHandshake.validateServerResponse(try #require(Self.response(text + "\r\n")), key: key, offeredSubprotocols: offered)
        }
        #expect(try check(good).get() == nil)
        #expect(try check(good + "Sec-WebSocket-Protocol: herald.v1\r\n").get() == "herald.v1")
        // §4.1 item 6: a subprotocol we did not offer fails.
        #expect((try? check(good + "Sec-WebSocket-Protocol: other\r\n").get()) == nil)
        // §4.1 item 4: a wrong accept key fails.
        #expect((try? check(good.replacingOccurrences(of: "s3pP", with: "AAAA")).get()) == nil)
        // §4.1 item 5: an extension we did not offer fails.
        #expect((try? check(good + "Sec-WebSocket-Extensions: permessage-deflate\r\n").get()) == nil)
        // §4.1 item 1: any status but 101 fails, reporting the status.
        if case .failure(let failure) = try check("HTTP/1.1 401 Unauthorized\r\nContent-Length: 0\r\n") {
            #expect(failure.status == 401)
        } else {
            Issue.record("401 accepted")
        }
    }
}

extension String {
    func replacingSpaces() -> String { String(filter { $0 != " " }) }

    func components(separatedByCRLF _: Void = ()) -> [String] {
        split(separator: "\r\n", omittingEmptySubsequences: false).map(String.init)
    }

    func replacingFirstLine(_ line: String) -> String {
        var lines = components(separatedByCRLF: ())
        lines[0] = line
        return lines.joined(separator: "\r\n")
    }

    func replacingOccurrences(of target: String, with replacement: String) -> String {
        var result = ""
        var rest = self[...]
        while let range = rest.firstRange(of: target) {
            result += rest[..<range.lowerBound] + replacement
            rest = rest[range.upperBound...]
        }
        return result + rest
    }
}

func separatedByCRLF() {}
