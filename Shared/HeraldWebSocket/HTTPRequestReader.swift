/// Reads HTTP/1.1 requests from a byte stream, sans-IO: bytes in, heads and bodies out, one request at a time,
/// so pipelined requests come out in order (RFC 9112 §9.3.2). The one request reader: the server's API and metrics
/// and the client's push endpoint read requests with it, on the head parser the WebSocket upgrade uses.
///
/// ```swift
/// var reader = HTTPRequestReader(maxHeadSize: 8192)
/// reader.append(bytes)
/// if case .head(let head) = reader.next() {
///     if let failure = reader.beginBody(of: head, maxBodySize: 1 << 20) { answer(failure) }   // or skipBody()
///     if case .body(let body) = reader.next() { handle(HTTPRequest(head: head, body: body)) }
/// }
/// ```
///
/// Bodies are framed by Content-Length or `Transfer-Encoding: chunked` (§6); a request with both, an
/// unknown transfer coding or a malformed length fails, as does a body over its limit (413) or a head or
/// trailer section over `maxHeadSize` (431). After a failure the reader keeps failing: framing is lost.
public struct HTTPRequestReader {
    public enum Event: Equatable {
        /// Nothing complete yet; every byte is kept.
        case needMore
        /// A request head; call ``beginBody(of:maxBodySize:)`` or ``skipBody()`` before the next ``next()``.
        case head(HTTPRequestHead)
        /// The whole body of the request whose head came last.
        case body([UInt8])
        case failed(HTTPReadFailure)
    }

    private enum State {
        case head
        case awaitingBodyDecision
        case fixed(remaining: Int)
        case chunked(ChunkedBodyDecoder)
        case failed(HTTPReadFailure)
    }

    public let maxHeadSize: Int
    private var headParser: HTTPRequestHeadParser
    private var state = State.head
    private var buffer: [UInt8] = []
    /// Bytes before this index are consumed (heads: fed to the head parser).
    private var start = 0
    private var body: [UInt8] = []

    public init(maxHeadSize: Int) {
        self.maxHeadSize = maxHeadSize
        headParser = HTTPRequestHeadParser(maxHeadSize: maxHeadSize)
    }

    /// Bytes received and not yet consumed by a head or body.
    public var bufferedCount: Int { buffer.count - start }

    /// Keeps a copy of `bytes`.
    public mutating func append(_ bytes: UnsafeRawBufferPointer) {
        if start > 0 && (start == buffer.count || start >= 1 << 16) {
            buffer.removeFirst(start)
            start = 0
        }
        buffer.append(contentsOf: bytes)
    }

    /// Takes every byte not consumed yet (what follows an upgrade request belongs to the WebSocket session).
    public mutating func takeBuffered() -> [UInt8] {
        defer {
            buffer.removeAll()
            start = 0
        }
        return Array(buffer[start...])
    }

    /// The next head, body or failure the buffered bytes make.
    public mutating func next() -> Event {
        switch state {
        case .failed(let failure):
            return .failed(failure)
        case .awaitingBodyDecision:
            return .needMore
        case .head:
            guard start < buffer.count else { return .needMore }
            let result = buffer.withUnsafeBytes { headParser.parse(UnsafeRawBufferPointer(rebasing: $0[start...])) }
            switch result {
            case .needMore:
                start = buffer.count
                return .needMore
            case .failed(let status, let reason):
                return fail(.fromHead(status: status, reason: reason))
            case .complete(let head, let consumed):
                start += consumed
                state = .awaitingBodyDecision
                return .head(head)
            }
        case .fixed(let remaining):
            let take = min(remaining, buffer.count - start)
            body.append(contentsOf: buffer[start..<(start + take)])
            start += take
            if remaining - take > 0 {
                state = .fixed(remaining: remaining - take)
                return .needMore
            }
            return finishBody()
        case .chunked(var decoder):
            let outcome = decoder.decode(buffer, from: &start, into: &body)
            state = .chunked(decoder)
            switch outcome {
            case .needMore: return .needMore
            case .failed(let failure): return fail(failure)
            case .done: return finishBody()
            }
        }
    }

    /// Decides how the body of `head` is framed (RFC 9112 §6.1-6.3); nil when reading can go on.
    public mutating func beginBody(of head: HTTPRequestHead, maxBodySize: Int) -> HTTPReadFailure? {
        body = []
        let codings = head.headers.listValues(for: "Transfer-Encoding")
        let lengths = head.headers.listValues(for: "Content-Length")
        if !codings.isEmpty {
            // §6.1: Transfer-Encoding with Content-Length is a smuggling attempt: refuse and close.
            guard lengths.isEmpty else {
                return failBody(.init(status: 400, code: "bad_request", message: "both Transfer-Encoding and Content-Length"))
            }
            guard head.version != .http10 else {
                return failBody(.init(status: 400, code: "bad_request", message: "Transfer-Encoding in an HTTP/1.0 request"))
            }
            guard codings.count == 1, HTTPHeaders.namesEqual(codings[0], "chunked") else {
                return failBody(.init(status: 501, code: "not_implemented", message: "only the chunked transfer coding is supported"))
            }
            state = .chunked(ChunkedBodyDecoder(maxBodySize: maxBodySize, maxTrailerSize: maxHeadSize))
            return nil
        }
        guard let first = lengths.first else {
            state = .fixed(remaining: 0)
            return nil
        }
        // §6.3: repeated equal values are one length; differing ones or non-digits are an error.
        guard lengths.allSatisfy({ $0 == first }), !first.isEmpty, first.utf8.count <= 18,
              first.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }), let length = Int(first) else {
            return failBody(.init(status: 400, code: "bad_request", message: "invalid Content-Length"))
        }
        guard length <= maxBodySize else {
            return failBody(.init(status: 413, code: "too_large", message: "the body exceeds \(maxBodySize) bytes"))
        }
        // The length is only the peer's claim: reserve a bounded amount, so a large limit is not a license to make the
        // server allocate (or fail to allocate, and abort) that much before a byte of body has arrived.
        body.reserveCapacity(min(length, 1 << 16))
        state = .fixed(remaining: length)
        return nil
    }

    /// Goes on with the next head without reading a body (for requests the connection answers and closes).
    public mutating func skipBody() {
        state = .head
    }

    private mutating func finishBody() -> Event {
        state = .head
        defer { body = [] }
        return .body(body)
    }

    private mutating func fail(_ failure: HTTPReadFailure) -> Event {
        state = .failed(failure)
        return .failed(failure)
    }

    private mutating func failBody(_ failure: HTTPReadFailure) -> HTTPReadFailure {
        state = .failed(failure)
        return failure
    }
}
