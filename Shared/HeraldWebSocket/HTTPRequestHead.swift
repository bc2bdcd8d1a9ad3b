/// A parsed HTTP/1.x request head: request line plus header fields (RFC 9112 §3, §5).
public struct HTTPRequestHead: Sendable, Hashable {
    /// The method, case-sensitive as sent (e.g. `GET`).
    public var method: String
    /// The request target exactly as sent (e.g. `/sync?token=a%20b`).
    public var target: String
    /// The target's path: everything before `?`, not percent-decoded (e.g. `/sync`). For an absolute-form target
    /// (`http://host/p`) the scheme and authority are removed.
    public var path: String
    /// The query's `name=value` pairs, percent-decoded, `+` read as space (form encoding); on a repeated name the
    /// first value wins. A name without `=` maps to "".
    public var query: [String: String]
    /// The HTTP version as (major, minor), e.g. (1, 1).
    public var version: HTTPVersion
    /// The header fields.
    public var headers: HTTPHeaders

    /// Creates a head; `path` and `query` are derived from `target`.
    public init(method: String, target: String, version: HTTPVersion = .http11, headers: HTTPHeaders) {
        self.method = method
        self.target = target
        self.version = version
        self.headers = headers
        (self.path, self.query) = Self.split(target: target)
    }

    /// The path and query of `target`, read byte by byte (a request target is ASCII, RFC 9112 §3.2; Character-level
    /// Substring searches cost a tenth of a /sync upgrade).
    static func split(target: String) -> (String, [String: String]) {
        let bytes = Array(target.utf8)
        var rest = bytes[...]
        for scheme in Self.absoluteFormSchemes where rest.starts(with: scheme) {
            let authorityAndPath = rest.dropFirst(scheme.count)
            rest = authorityAndPath.firstIndex(of: UInt8(ascii: "/")).map { authorityAndPath[$0...] } ?? Self.rootPath[...]
            break
        }
        if let hash = rest.firstIndex(of: UInt8(ascii: "#")) { rest = rest[..<hash] }
        guard let questionMark = rest.firstIndex(of: UInt8(ascii: "?")) else { return (String(decoding: rest, as: UTF8.self), [:]) }
        var query: [String: String] = [:]
        for pair in rest[(questionMark + 1)...].split(separator: UInt8(ascii: "&")) where !pair.isEmpty {
            let equals = pair.firstIndex(of: UInt8(ascii: "="))
            let name = PercentDecoding.decode(equals.map { pair[..<$0] } ?? pair)
            if query[name] == nil { query[name] = equals.map { PercentDecoding.decode(pair[($0 + 1)...]) } ?? "" }
        }
        return (String(decoding: rest[..<questionMark], as: UTF8.self), query)
    }

    private static let absoluteFormSchemes = ["http://", "https://", "ws://", "wss://"].map { Array($0.utf8) }
    private static let rootPath = Array("/".utf8)
}

/// An HTTP version number.
public struct HTTPVersion: Sendable, Hashable, CustomStringConvertible {
    /// The major version.
    public var major: Int
    /// The minor version.
    public var minor: Int
    /// Creates a version.
    public init(major: Int, minor: Int) {
        self.major = major
        self.minor = minor
    }
    /// HTTP/1.1.
    public static let http11 = HTTPVersion(major: 1, minor: 1)
    /// HTTP/1.0.
    public static let http10 = HTTPVersion(major: 1, minor: 0)
    public var description: String { "HTTP/\(major).\(minor)" }
}

/// Percent-decoding for query components (RFC 3986 §2.1), with `+` as space.
enum PercentDecoding {
    /// Decodes `%XX` escapes and `+`; a malformed escape is kept literally, and invalid UTF-8 is repaired with U+FFFD.
    static func decode(_ bytes: ArraySlice<UInt8>) -> String {
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        var index = bytes.startIndex
        while index < bytes.endIndex {
            let byte = bytes[index]
            if byte == UInt8(ascii: "%"), index + 2 < bytes.endIndex,
               let high = hex(bytes[index + 1]), let low = hex(bytes[index + 2]) {
                output.append(high << 4 | low)
                index += 3
            } else {
                output.append(byte == UInt8(ascii: "+") ? UInt8(ascii: " ") : byte)
                index += 1
            }
        }
        return String(decoding: output, as: UTF8.self)
    }

    private static func hex(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}

/// The outcome of feeding bytes to an ``HTTPRequestHeadParser``.
public enum HTTPParseResult: Sendable, Hashable {
    /// The head is not complete yet; every byte given was consumed.
    case needMore
    /// The head is complete. `consumedBytes` counts only the bytes of the LAST call that belonged to the head;
    /// bytes after that index (a pipelined request, or the first WebSocket frame) are not part of it.
    case complete(HTTPRequestHead, consumedBytes: Int)
    /// The head is invalid: answer with `status` (400 malformed, 431 too large, 505 unsupported version) and close.
    case failed(status: Int, reason: String)
}

/// An incremental parser of HTTP/1.x request heads (RFC 9112), fed any chunking of the byte stream.
///
/// ```swift
/// var parser = HTTPRequestHeadParser()
/// switch parser.parse(readBuffer) {
/// case .needMore: break
/// case .complete(let head, let consumed): route(head, leftover: readBuffer[consumed...])
/// case .failed(let status, let reason): reject(status, reason)
/// }
/// ```
///
/// After `.complete` the parser is ready for the next head on the same connection; after `.failed` it keeps
/// returning the same failure.
public struct HTTPRequestHeadParser: Sendable {
    private var accumulator: HTTPHeadAccumulator
    private var failure: (status: Int, reason: String)?

    /// Creates a parser that fails with 431 once a head exceeds `maxHeadSize` bytes.
    public init(maxHeadSize: Int = 16384) { accumulator = HTTPHeadAccumulator(maxHeadSize: maxHeadSize) }

    /// Whether no byte of a head has been received since creation or the last complete head.
    public var isIdle: Bool { accumulator.isEmpty && failure == nil }

    /// Feeds bytes; see ``HTTPParseResult`` for what the result means.
    public mutating func parse(_ bytes: UnsafeRawBufferPointer) -> HTTPParseResult {
        if let failure { return .failed(status: failure.status, reason: failure.reason) }
        switch accumulator.append(bytes) {
        case .needMore:
            return .needMore
        case .failed(let status, let reason):
            return fail(status, reason)
        case .complete(let lines, let consumed):
            switch Self.makeHead(lines) {
            case .success(let head): return .complete(head, consumedBytes: consumed)
            case .failure(let failure): return fail(failure.status, failure.reason)
            }
        }
    }

    /// Feeds bytes from an array; see ``parse(_:)-(UnsafeRawBufferPointer)``.
    public mutating func parse(_ bytes: [UInt8]) -> HTTPParseResult {
        bytes.withUnsafeBytes { parse($0) }
    }

    private mutating func fail(_ status: Int, _ reason: String) -> HTTPParseResult {
        failure = (status, reason)
        return .failed(status: status, reason: reason)
    }

    private static func makeHead(_ lines: [[UInt8]]) -> Result<HTTPRequestHead, HTTPHeadFailure> {
        guard let requestLine = lines.first else { return .failure(.init(status: 400, reason: "empty request")) }
        // RFC 9112 §3: request-line = method SP request-target SP HTTP-version
        let parts = requestLine.split(separator: UInt8(ascii: " "), omittingEmptySubsequences: false)
        guard parts.count == 3, !parts[0].isEmpty, !parts[1].isEmpty,
              parts[0].allSatisfy(HTTPHeadAccumulator.isTokenCharacter),
              parts[1].allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
            return .failure(.init(status: 400, reason: "malformed request line"))
        }
        guard let (major, minor) = HTTPHeadAccumulator.parseVersion(parts[2]) else {
            return .failure(.init(status: 400, reason: "malformed HTTP version"))
        }
        // RFC 9110 §15.6.6: 505 for a major version we do not support.
        guard major == 1 else { return .failure(.init(status: 505, reason: "HTTP version \(major).\(minor) not supported")) }
        switch HTTPHeadAccumulator.parseFields(lines[1...]) {
        case .failure(let failure):
            return .failure(failure)
        case .success(let headers):
            let head = HTTPRequestHead(method: String(decoding: parts[0], as: UTF8.self), target: String(decoding: parts[1], as: UTF8.self),
                                       version: HTTPVersion(major: major, minor: minor), headers: headers)
            return .success(head)
        }
    }
}
