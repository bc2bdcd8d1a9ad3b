@testable import HeraldServer
import HeraldWebSocket
import Testing

/// The sans-IO request reader on real request bytes, whole and split at every offset.
@Suite("API: HTTPRequestReader")
struct APIHTTPReaderTests {
    static let pipeline = Array((
        "POST /a HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello"
        + "POST /b HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n2;x=y\r\nde\r\n0\r\nT: 1\r\n\r\n"
        + "GET /c HTTP/1.1\r\nHost: x\r\n\r\n").utf8)

    /// Feeds `chunks` and collects (path, body) pairs.
    static func read(_ chunks: [[UInt8]], maxBodySize: Int = 100) -> [String] {
        var reader = HTTPRequestReader(maxHeadSize: 8192)
        var out: [String] = []
        var path = ""
        for chunk in chunks {
            chunk.withUnsafeBytes { reader.append($0) }
            loop: while true {
                switch reader.next() {
                case .needMore: break loop
                case .head(let head):
                    path = head.path
                    if let failure = reader.beginBody(of: head, maxBodySize: maxBodySize) { out.append("fail \(failure.status)"); break loop }
                case .body(let body): out.append(path + " " + String(decoding: body, as: UTF8.self))
                case .failed(let failure): out.append("fail \(failure.status)"); break loop
                }
            }
        }
        return out
    }

    @Test("RFC 9112 §6, §7.1: Content-Length, chunked and bodiless requests in one stream, split at every offset")
    func everySplit() {
        let expected = ["/a hello", "/b abcde", "/c "]
        #expect(Self.read([Self.pipeline]) == expected)
        for split in 1..<Self.pipeline.count {
            #expect(Self.read([Array(Self.pipeline[..<split]), Array(Self.pipeline[split...])]) == expected, "split at \(split)")
        }
        #expect(Self.read(Self.pipeline.map { [$0] }) == expected)
    }

    @Test("Refusals: differing Content-Lengths 400, unknown coding 501, oversize 413, bad chunk size 400, long trailer 431")
    func refusals() {
        #expect(Self.read([Array("POST / HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n".utf8)]) == ["fail 400"])
        #expect(Self.read([Array("POST / HTTP/1.1\r\nContent-Length: -1\r\n\r\n".utf8)]) == ["fail 400"])
        #expect(Self.read([Array("POST / HTTP/1.1\r\nTransfer-Encoding: gzip, chunked\r\n\r\n".utf8)]) == ["fail 501"])
        #expect(Self.read([Array("POST / HTTP/1.1\r\nContent-Length: 101\r\n\r\n".utf8)]) == ["fail 413"])
        #expect(Self.read([Array("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nfffffffffffffffffffff\r\n".utf8)]) == ["fail 413"])
        #expect(Self.read([Array("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n".utf8)]) == ["fail 400"])
        #expect(Self.read([Array("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n1\r\nab\r\n".utf8)]) == ["fail 400"])
        let trailer = "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n0\r\nT: \(String(repeating: "t", count: 9000))\r\n\r\n"
        #expect(Self.read([Array(trailer.utf8)]) == ["fail 431"])
    }

    @Test("RFC 9112 §7.1: with no practical body limit (Int.max) a chunk size past Int.max is 413, not an overflow trap")
    func chunkSizeBeyondIntMaxIsRefused() {
        // 17 hex digits: more than 64 bits.
        let request = "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n1ffffffffffffffff\r\n"
        #expect(Self.read([Array(request.utf8)], maxBodySize: .max) == ["fail 413"])
        // A first chunk near the limit, then a second whose size would push the total past Int.max.
        let second = "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n7ffffffffffffff0\r\nab"
        var reader = HTTPRequestReader(maxHeadSize: 8192)
        Array(second.utf8).withUnsafeBytes { reader.append($0) }
        guard case .head(let head) = reader.next() else { Issue.record("no head"); return }
        #expect(reader.beginBody(of: head, maxBodySize: .max) == nil)
        #expect(reader.next() == .needMore)
    }

    @Test("RFC 9112 §6.3: a Content-Length the limit allows reserves no more than a bounded buffer up front")
    func hugeContentLengthDoesNotPreallocate() {
        // 18 digits: within a limit of Int.max, but reserving it would abort the process.
        let request = "POST / HTTP/1.1\r\nContent-Length: 999999999999999999\r\n\r\nhello"
        var reader = HTTPRequestReader(maxHeadSize: 8192)
        Array(request.utf8).withUnsafeBytes { reader.append($0) }
        guard case .head(let head) = reader.next() else { Issue.record("no head"); return }
        #expect(reader.beginBody(of: head, maxBodySize: .max) == nil)
        #expect(reader.next() == .needMore)
    }
}
