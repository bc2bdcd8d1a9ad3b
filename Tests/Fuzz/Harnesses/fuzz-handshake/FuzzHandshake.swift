import FuzzSupport
import HeraldDeflate
import HeraldWebSocket

/// The opening handshake (RFC 6455 §4) on both sides: random bytes into ``HTTPRequestHeadParser`` then
/// ``WebSocketHandshake/validateUpgrade(_:)`` and permessage-deflate negotiation (the server), or into
/// ``HTTPResponseHeadParser`` then ``WebSocketHandshake/validateServerResponse(_:key:offeredSubprotocols:allowExtensions:)``
/// and the client's extension check.
///
/// Input layout: byte 0 picks the side, the head size limit and the largest chunk; bytes 1-8 seed the chunking.
/// Properties: never traps; chunking does not change any result (consumed byte counts are compared as absolute
/// offsets); a parser that failed keeps failing; every accepted upgrade yields a 101 response that our own client
/// side parses and accepts, with the subprotocol the server chose; negotiated deflate parameters can be used.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHandshake(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    var reader = FuzzReader(fuzzInput(data, size))
    let config = reader.byte()
    let seed = reader.uint64()
    let input = reader.rest()
    let maxHeadSize = [64, 512, 16384, 16384][Int(config >> 1) & 3]
    let maxChunk = [1, 5, 64, 1 << 20][Int(config >> 3) & 3]
    let chunks = chunkRanges(count: input.count, seed: seed, maxChunk: maxChunk)

    if config & 1 == 0 {
        let whole = parseRequests(input, chunks: [0..<input.count], maxHeadSize: maxHeadSize)
        let chunked = parseRequests(input, chunks: chunks, maxHeadSize: maxHeadSize)
        fuzzRequire(whole == chunked, "chunking changed the request heads: \(whole) vs \(chunked)")
        for case .head(let head, _) in whole { checkUpgrade(head) }
    } else {
        let whole = parseResponses(input, chunks: [0..<input.count], maxHeadSize: maxHeadSize)
        let chunked = parseResponses(input, chunks: chunks, maxHeadSize: maxHeadSize)
        fuzzRequire(whole == chunked, "chunking changed the response heads: \(whole) vs \(chunked)")
        for case .head(let head, _) in whole { checkResponse(head) }
    }
    return 0
}

/// What a parser reported, with consumed counts turned into offsets in the whole input.
private enum Parsed<Head: Equatable>: Equatable {
    case head(Head, end: Int)
    case failed(status: Int, reason: String)
}

/// Parses pipelined request heads: after each complete head, the parser continues with the bytes that follow.
private func parseRequests(_ input: [UInt8], chunks: [Range<Int>], maxHeadSize: Int) -> [Parsed<HTTPRequestHead>] {
    var parser = HTTPRequestHeadParser(maxHeadSize: maxHeadSize)
    var results: [Parsed<HTTPRequestHead>] = []
    for range in chunks {
        var start = range.lowerBound
        while start < range.upperBound {
            let slice = input[start..<range.upperBound]
            let result = slice.withUnsafeBytes { parser.parse($0) }
            switch result {
            case .needMore:
                fuzzRequire(!parser.isIdle || slice.allSatisfy({ $0 == 0x0A }), "idle parser after consuming a partial head")
                start = range.upperBound
            case .complete(let head, let consumed):
                fuzzRequire(consumed >= 1 && consumed <= slice.count, "consumed \(consumed) of \(slice.count) bytes")
                fuzzRequire(parser.isIdle, "parser not idle after a complete head")
                start += consumed
                results.append(.head(head, end: start))
            case .failed(let status, let reason):
                fuzzRequire([400, 431, 505].contains(status), "request refused with status \(status)")
                // Once failed, stay failed (and consume nothing more).
                let again = [UInt8]("GET / HTTP/1.1\r\nHost: a\r\n\r\n".utf8).withUnsafeBytes { parser.parse($0) }
                fuzzRequire(again == .failed(status: status, reason: reason), "failed parser recovered: \(again)")
                results.append(.failed(status: status, reason: reason))
                return results
            }
        }
    }
    return results
}

private func parseResponses(_ input: [UInt8], chunks: [Range<Int>], maxHeadSize: Int) -> [Parsed<HTTPResponseHead>] {
    var parser = HTTPResponseHeadParser(maxHeadSize: maxHeadSize)
    var results: [Parsed<HTTPResponseHead>] = []
    for range in chunks {
        var start = range.lowerBound
        while start < range.upperBound {
            let slice = input[start..<range.upperBound]
            switch slice.withUnsafeBytes({ parser.parse($0) }) {
            case .needMore:
                start = range.upperBound
            case .complete(let head, let consumed):
                fuzzRequire(consumed >= 1 && consumed <= slice.count, "consumed \(consumed) of \(slice.count) bytes")
                fuzzRequire((0...999).contains(head.status), "status \(head.status) is not three digits")  // 3DIGIT, RFC 9112 §4
                start += consumed
                results.append(.head(head, end: start))
            case .failed(let reason):
                let again = [UInt8]("HTTP/1.1 101 OK\r\n\r\n".utf8).withUnsafeBytes { parser.parse($0) }
                fuzzRequire(again == .failed(reason: reason), "failed parser recovered: \(again)")
                results.append(.failed(status: 0, reason: reason))
                return results
            }
        }
    }
    return results
}

/// The server side of a parsed request, and our client side of the server's answer.
private func checkUpgrade(_ head: HTTPRequestHead) {
    switch WebSocketHandshake.validateUpgrade(head) {
    case .failure(let rejection):
        fuzzRequire(rejection.status == 400 || rejection.status == 426, "upgrade refused with \(rejection.status)")
        let response = WebSocketHandshake.rejectionResponse(status: rejection.status, reason: rejection.reason,
                                                             headers: rejection.headers.map { ($0.name, $0.value) })
        var parser = HTTPResponseHeadParser()
        guard case .complete(let parsed, let consumed) = parser.parse(response) else {
            return fuzzRequire(false, "our own rejection does not parse: \(response)")
        }
        fuzzRequire(parsed.status == rejection.status, "rejection parsed as status \(parsed.status)")
        fuzzRequire(parsed.headers["Content-Length"] == String(response.count - consumed), "Content-Length does not match the body")
    case .success(let request):
        fuzzRequire(head.method == "GET" && head.version.major == 1 && head.version.minor >= 1, "accepted \(head.method) \(head.version)")
        fuzzRequire(Base64.decode(request.key)?.count == 16, "accepted key \(request.key)")
        let agreed = PerMessageDeflateServerConfiguration().negotiate(request.offeredExtensions)
        if let agreed {
            // Negotiation must never agree to something the codec then refuses (e.g. a window of 8).
            let codec = try? PerMessageDeflate(parameters: agreed, role: .server)
            fuzzRequire(codec != nil, "negotiated \(agreed) but PerMessageDeflate refuses it")
        }
        let subprotocol = request.offeredSubprotocols.first
        let response = WebSocketHandshake.serverResponse(for: request, subprotocol: subprotocol, extensionsHeader: agreed?.responseHeader)
        var parser = HTTPResponseHeadParser()
        guard case .complete(let parsed, let consumed) = parser.parse(response) else {
            return fuzzRequire(false, "our own 101 does not parse: \(String(decoding: response, as: UTF8.self).debugDescription)")
        }
        fuzzRequire(consumed == response.count, "101 response parsed short: \(consumed) of \(response.count)")
        let checked = WebSocketHandshake.validateServerResponse(parsed, key: request.key, offeredSubprotocols: request.offeredSubprotocols,
                                                                allowExtensions: true)
        switch checked {
        case .success(let chosen):
            fuzzRequire(chosen == subprotocol, "client saw subprotocol \(String(describing: chosen)), server chose \(String(describing: subprotocol))")
        case .failure(let failure):
            fuzzRequire(false, "our client refuses our server's 101 for \(head): \(failure)")
        }
    }
}

/// The client side of a parsed response: no trap, and a status other than 101 always fails the handshake.
private func checkResponse(_ head: HTTPResponseHead) {
    let key = "dGhlIHNhbXBsZSBub25jZQ=="
    for allowExtensions in [false, true] {
        let result = WebSocketHandshake.validateServerResponse(head, key: key, offeredSubprotocols: ["herald.v1", "chat"],
                                                               allowExtensions: allowExtensions)
        if head.status != 101, case .success = result { fuzzRequire(false, "accepted status \(head.status)") }
        if case .success(let chosen?) = result { fuzzRequire(["herald.v1", "chat"].contains(chosen), "accepted subprotocol \(chosen)") }
    }
    var client = PerMessageDeflateClientConfiguration()
    client.requestServerMaxWindowBits = 10
    for configuration in [PerMessageDeflateClientConfiguration(), client] {
        if let agreed = try? configuration.acceptResponse(head.headers.values(for: "Sec-WebSocket-Extensions")) {
            // An accepted response gives us windows we can receive with; whether we can send with the client window
            // the server imposed is the codec's check, which may refuse (then we fail the connection, 1010).
            fuzzRequire((9...15).contains(agreed.receivingWindowBits(for: .client)), "accepted \(agreed)")
            _ = try? PerMessageDeflate(parameters: agreed, role: .client)
        }
    }
}
