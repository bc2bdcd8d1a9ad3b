@testable import HeraldClient
import HeraldWebSocket
import Testing

/// The push endpoint reads a push service's request (RFC 8030 §5) with the server's HTTP/1.1 reader: whole requests
/// however the bytes are split, and the same refusals as the server (RFC 9112 §6.1 smuggling, bounded head and body).
@Suite("Push endpoint: HTTP/1.1 request reading")
struct PushEndpointRequestTests {
    static let body: [UInt8] = Array(0..<200).map { UInt8($0) }
    static let request: [UInt8] = Array("POST /push/abc HTTP/1.1\r\nHost: x\r\nContent-Encoding: aes128gcm\r\nContent-Length: 200\r\nTTL: 60\r\n\r\n".utf8) + body

    static func parse(_ chunks: [ArraySlice<UInt8>]) -> PushEndpointRequest.Parse {
        var request = PushEndpointRequest()
        var last = PushEndpointRequest.Parse.needMore
        for chunk in chunks {
            request.append(chunk)
            last = request.parse()
            if last != .needMore { break }
        }
        return last
    }

    @Test("A request split at every offset gives the same method, path, header and body")
    func everySplit() throws {
        for split in 0...Self.request.count {
            let parsed = Self.parse([Self.request[..<split], Self.request[split...]])
            guard case .complete(let head, let body) = parsed else {
                Issue.record("split at \(split): \(parsed)")
                return
            }
            #expect(head.method == "POST" && head.path == "/push/abc")
            #expect(head.headers["content-encoding"] == "aes128gcm")
            #expect(body == Self.body)
        }
    }

    @Test("A chunked body is read like the server reads it (RFC 9112 §7.1)")
    func chunkedBody() throws {
        let bytes = Array("POST /p HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n2\r\nde\r\n0\r\n\r\n".utf8)
        #expect(Self.parse([bytes[...]]) == .complete(
            head: HTTPRequestHead(method: "POST", target: "/p", headers: ["Transfer-Encoding": "chunked"]), body: Array("abcde".utf8)))
    }

    @Test("Refused: Transfer-Encoding with Content-Length (400), a body over 8 KiB (413), a head over 16 KiB (431), not HTTP (400)")
    func refusals() throws {
        let smuggled = Array("POST /p HTTP/1.1\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n".utf8)
        guard case .refused(400, _) = Self.parse([smuggled[...]]) else { Issue.record("smuggling accepted"); return }
        let large = Array("POST /p HTTP/1.1\r\nContent-Length: 8193\r\n\r\n".utf8)
        guard case .refused(413, _) = Self.parse([large[...]]) else { Issue.record("large body accepted"); return }
        let longHead = Array("POST /p HTTP/1.1\r\nX: \(String(repeating: "a", count: 17_000))\r\n\r\n".utf8)
        guard case .refused(431, _) = Self.parse([longHead[...]]) else { Issue.record("long head accepted"); return }
        let notHTTP = Array("HELLO\r\n\r\n".utf8)
        guard case .refused(400, _) = Self.parse([notHTTP[...]]) else { Issue.record("not HTTP accepted"); return }
    }
}
