import HeraldTestSupport
import HeraldWebSocket
import Testing

/// RFC 9112: the incremental request-head parser the server runs on every connection.
@Suite("HTTP/1.1 head parsing (RFC 9112)")
struct HTTPParserTests {
    /// What a parser session produced: the head (or failure) and every byte that came after the head.
    struct Outcome: Equatable, CustomStringConvertible {
        var head: HTTPRequestHead?
        var failure: Int?
        var leftover: [UInt8]
        var description: String { "head: \(head.map { "\($0.method) \($0.target)" } ?? "none"), failure: \(failure ?? 0), leftover: \(leftover.count)" }
    }

    struct Session {
        var parser = HTTPRequestHeadParser(maxHeadSize: 1024)
        var outcome = Outcome(head: nil, failure: nil, leftover: [])
        mutating func feed(_ bytes: UnsafeRawBufferPointer) {
            if outcome.head != nil || outcome.failure != nil {
                if outcome.head != nil { outcome.leftover += bytes }
                return
            }
            switch parser.parse(bytes) {
            case .needMore: break
            case .complete(let head, let consumed):
                outcome.head = head
                outcome.leftover += bytes[consumed...]
            case .failed(let status, _):
                outcome.failure = status
            }
        }
    }

    static func verify(_ text: String, expecting expected: Outcome, sourceLocation: SourceLocation = #_sourceLocation) {
        let mismatches = ParserVerifier.verify(Array(text.utf8), expecting: expected, makeSession: { Session() },
                                               feed: { $0.feed($1) }, transcript: { $0.outcome })
        #expect(mismatches.isEmpty, "\(mismatches.prefix(2))", sourceLocation: sourceLocation)
    }

    @Test("RFC 9112 §2.1: a head parses the same in every chunking; bytes after it (a WebSocket frame) are left over")
    func incremental() {
        let head = "GET /healthz?a=1&b=%E2%9C%93 HTTP/1.1\r\nHost: x\r\nX-Multi: 1\r\nx-multi: 2\r\n\r\n"
        let frame = "\u{01}\u{05}Hello"  // stands in for a frame; ASCII so the string's UTF-8 is these exact bytes
        var headers = HTTPHeaders()
        headers.add(name: "Host", value: "x")
        headers.add(name: "X-Multi", value: "1")
        headers.add(name: "x-multi", value: "2")
        let expected = HTTPRequestHead(method: "GET", target: "/healthz?a=1&b=%E2%9C%93", version: .http11, headers: headers)
        Self.verify(head + frame, expecting: Outcome(head: expected, failure: nil, leftover: Array(frame.utf8)))
        #expect(expected.query == ["a": "1", "b": "✓"])
        #expect(expected.headers.values(for: "X-MULTI") == ["1", "2"])
        #expect(expected.headers["host"] == "x")
    }

    @Test("RFC 9112 §2.2: bare LF line endings are accepted; a leading empty line is skipped")
    func lenientLineEndings() {
        let expected = HTTPRequestHead(method: "GET", target: "/", headers: ["Host": "h"])
        Self.verify("\r\nGET / HTTP/1.1\nHost: h\n\n", expecting: Outcome(head: expected, failure: nil, leftover: []))
    }

    @Test("RFC 9112: garbage fails with 400 as soon as it shows", arguments: [
        ("TLS ClientHello on a plain port", "\u{16}\u{03}\u{01}\u{02}\u{00}"),
        ("binary junk", "\u{00}\u{01}\u{02}"),
        ("no spaces in request line", "GARBAGE\r\n\r\n"),
        ("space before colon (§5.1)", "GET / HTTP/1.1\r\nHost : x\r\n\r\n"),
        ("obsolete line folding (§5.2)", "GET / HTTP/1.1\r\nHost: x\r\n folded\r\n\r\n"),
        ("header without colon", "GET / HTTP/1.1\r\nHost\r\n\r\n"),
        ("bare CR", "GET / HTTP/1.1\rHost: x\r\n\r\n"),
        ("malformed version", "GET / HTTX/1.1\r\n\r\n"),
    ])
    func garbage(name: String, text: String) {
        Self.verify(text, expecting: Outcome(head: nil, failure: 400, leftover: []))
    }

    @Test("RFC 9112: garbage without a line end fails at its first byte, not after 16 KiB")
    func garbageFailsEarly() {
        var parser = HTTPRequestHeadParser()
        #expect(parser.parse([0x16]) == .failed(status: 400, reason: "control character in HTTP head"))
        // And it stays failed.
        if case .failed = parser.parse(Array("GET / HTTP/1.1\r\n\r\n".utf8)) {} else { Issue.record("recovered after failure") }
    }

    @Test("RFC 9110 §15.6.6: HTTP/2.0 in a request line fails with 505")
    func unsupportedVersion() {
        Self.verify("GET / HTTP/2.0\r\nHost: x\r\n\r\n", expecting: Outcome(head: nil, failure: 505, leftover: []))
    }

    @Test("RFC 6585 §5: a head over maxHeadSize fails with 431")
    func oversize() {
        let text = "GET / HTTP/1.1\r\n" + String(repeating: "X-Filler: 0123456789\r\n", count: 100) + "\r\n"
        var session = Session()
        session.feed(Array(text.utf8).withUnsafeBytes { $0 })
        Self.verify(text, expecting: Outcome(head: nil, failure: 431, leftover: []))
        // The default 16 KiB limit.
        var parser = HTTPRequestHeadParser()
        let big = Array(("GET / HTTP/1.1\r\n" + String(repeating: "X: y\r\n", count: 3000)).utf8)
        #expect(big.withUnsafeBytes { parser.parse($0) } == .failed(status: 431, reason: "HTTP head exceeds 16384 bytes"))
    }

    @Test("RFC 9112 §2.2 + RFC 6585 §5: blank lines before the request line count toward the head limit (fuzz finding)")
    func blankLineFlood() {
        var parser = HTTPRequestHeadParser()
        let flood = [UInt8](repeating: UInt8(ascii: "\n"), count: 20_000)
        #expect(flood.withUnsafeBytes { parser.parse($0) } == .failed(status: 431, reason: "HTTP head exceeds 16384 bytes"))
        // A few blank lines are still ignored, as §2.2 asks.
        var tolerant = HTTPRequestHeadParser()
        let head = Array("\r\n\nGET / HTTP/1.1\r\nHost: x\r\n\r\n".utf8)
        guard case .complete = head.withUnsafeBytes({ tolerant.parse($0) }) else {
            Issue.record("leading blank lines were not ignored")
            return
        }
    }

    @Test("RFC 9112 §9.3: two pipelined heads parse one after the other from the leftovers")
    func pipelined() {
        let bytes = Array("GET /a HTTP/1.1\r\nHost: x\r\n\r\nGET /b HTTP/1.1\r\nHost: x\r\n\r\n".utf8)
        var parser = HTTPRequestHeadParser()
        guard case .complete(let first, let consumed) = parser.parse(bytes) else { Issue.record("first"); return }
        #expect(first.path == "/a")
        guard case .complete(let second, let consumed2) = parser.parse(Array(bytes[consumed...])) else { Issue.record("second"); return }
        #expect(second.path == "/b")
        #expect(consumed + consumed2 == bytes.count)
    }

    @Test("RFC 9112 §4: response heads parse incrementally with the leftover frame")
    func responseHead() {
        // The head, then 81 00 (an empty server text frame) that must be left over.
        let text = Array("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n\r\n".utf8) + [0x81, 0x00]
        for split in 0...text.count {
            var parser = HTTPResponseHeadParser()
            var result = text.withUnsafeBytes { parser.parse(UnsafeRawBufferPointer(rebasing: $0[0..<split])) }
            var offset = 0
            if case .needMore = result {
                result = text.withUnsafeBytes { parser.parse(UnsafeRawBufferPointer(rebasing: $0[split...])) }
                offset = split
            }
            guard case .complete(let head, let consumed) = result else { Issue.record("split \(split): \(result)"); continue }
            #expect(head.status == 101 && head.reasonPhrase == "Switching Protocols" && head.headers["upgrade"] == "websocket")
            #expect(offset + consumed == text.count - 2, "split \(split)")
        }
        var parser = HTTPResponseHeadParser()
        if case .failed = parser.parse(Array("HTTP/1.1 1x1 Nope\r\n\r\n".utf8)) {} else { Issue.record("bad status accepted") }
    }
}
