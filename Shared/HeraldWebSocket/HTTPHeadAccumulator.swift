/// Collects bytes until the blank line that ends an HTTP/1.1 head (RFC 9112 §2.1), across any chunking, and
/// rejects garbage as soon as it shows.
///
/// Shared by ``HTTPRequestHeadParser`` and ``HTTPResponseHeadParser``. Lines end in CRLF; a bare LF is accepted as
/// a line end as RFC 9112 §2.2 permits, a bare CR is not.
struct HTTPHeadAccumulator {
    enum Outcome {
        case needMore
        /// The head's lines (without terminators, without the blank line) and how many bytes of the last input
        /// belonged to the head.
        case complete(lines: [[UInt8]], consumed: Int)
        case failed(status: Int, reason: String)
    }

    let maxHeadSize: Int
    private var lines: [[UInt8]] = []
    private var line: [UInt8] = []
    private var previousWasCR = false
    private var total = 0

    init(maxHeadSize: Int) { self.maxHeadSize = maxHeadSize }

    /// Whether nothing of a head has been received yet.
    var isEmpty: Bool { total == 0 }

    mutating func append(_ bytes: UnsafeRawBufferPointer) -> Outcome {
        var index = 0
        // The bytes from here to `index` are checked and belong to `line`: appended as one run when the line ends or
        // the input does, not one by one.
        var runStart = 0
        defer { if runStart < index { line.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[runStart..<index])) } }
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            total += 1
            if byte == UInt8(ascii: "\n") {
                line.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[runStart..<(index - 1)]))
                runStart = index
                if previousWasCR { line.removeLast() }
                previousWasCR = false
                if line.isEmpty {
                    // RFC 9112 §2.2: a server SHOULD ignore at least one empty line received before the request-line.
                    // Bounded like any other head byte, or a flood of blank lines would never be refused.
                    if lines.isEmpty {
                        if total > maxHeadSize { return .failed(status: 431, reason: "HTTP head exceeds \(maxHeadSize) bytes") }
                        continue
                    }
                    let complete = lines
                    reset()
                    return .complete(lines: complete, consumed: index)
                }
                lines.append(line)
                line.removeAll(keepingCapacity: true)
                continue
            }
            if previousWasCR {
                // RFC 9112 §2.2: a bare CR outside a line ending is invalid.
                return .failed(status: 400, reason: "bare CR in HTTP head")
            }
            previousWasCR = byte == UInt8(ascii: "\r")
            // Control characters (other than HTAB and the CR of CRLF) never appear in a valid head: fail garbage early.
            if byte < 0x20 && byte != UInt8(ascii: "\t") && byte != UInt8(ascii: "\r") || byte == 0x7F {
                return .failed(status: 400, reason: "control character in HTTP head")
            }
            // The start line is ASCII; binary junk on a fresh connection fails at its first byte.
            if lines.isEmpty && byte >= 0x80 {
                return .failed(status: 400, reason: "non-ASCII byte in start line")
            }
            if total > maxHeadSize {
                // RFC 6585 §5: 431 Request Header Fields Too Large.
                return .failed(status: 431, reason: "HTTP head exceeds \(maxHeadSize) bytes")
            }
        }
        return .needMore
    }

    private mutating func reset() {
        lines = []
        line.removeAll(keepingCapacity: true)
        previousWasCR = false
        total = 0
    }

    /// Parses `name: value` field lines (RFC 9112 §5).
    static func parseFields(_ lines: ArraySlice<[UInt8]>) -> Result<HTTPHeaders, HTTPHeadFailure> {
        var headers = HTTPHeaders()
        for line in lines {
            if let first = line.first, first == UInt8(ascii: " ") || first == UInt8(ascii: "\t") {
                // RFC 9112 §5.2: obsolete line folding; a server MAY reject it with 400, which we do.
                return .failure(.init(status: 400, reason: "obsolete line folding"))
            }
            guard let colon = line.firstIndex(of: UInt8(ascii: ":")), colon > 0 else {
                return .failure(.init(status: 400, reason: "header line without a name and colon"))
            }
            let name = line[..<colon]
            // RFC 9112 §5.1: no whitespace between name and colon (MUST reject with 400); the name is a token.
            guard name.allSatisfy(isTokenCharacter) else {
                return .failure(.init(status: 400, reason: "invalid header name"))
            }
            let value = String(decoding: HTTPHeaders.trimmed(line[(colon + 1)...]), as: UTF8.self)
            headers.add(name: String(decoding: name, as: UTF8.self), value: value)
        }
        return .success(headers)
    }

    /// RFC 9110 §5.6.2 tchar.
    static func isTokenCharacter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"): true
        default: "!#$%&'*+-.^_`|~".utf8.contains(byte)
        }
    }

    /// Parses "HTTP/d.d" into (major, minor).
    static func parseVersion(_ bytes: ArraySlice<UInt8>) -> (Int, Int)? {
        let text = Array(bytes)
        guard text.count == 8, text[0...4] == Array("HTTP/".utf8)[...], text[6] == UInt8(ascii: "."),
              let major = digit(text[5]), let minor = digit(text[7]) else { return nil }
        return (major, minor)
    }

    private static func digit(_ byte: UInt8) -> Int? {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") ? Int(byte - UInt8(ascii: "0")) : nil
    }
}

/// Why an HTTP head was rejected: the status to answer with and a reason for logs.
struct HTTPHeadFailure: Error {
    var status: Int
    var reason: String
}
