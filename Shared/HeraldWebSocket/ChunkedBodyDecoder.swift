/// Decodes a chunked body (RFC 9112 §7.1): hex size lines with optional extensions, data, CRLF, a zero chunk,
/// then a trailer section that is read and dropped. Bounded: the body by `maxBodySize` (413), the trailer
/// section by `maxTrailerSize` (431), a size line by 1 KiB (400).
struct ChunkedBodyDecoder {
    enum Outcome: Equatable {
        case needMore
        case done
        case failed(HTTPReadFailure)
    }

    private enum State: Equatable {
        case sizeLine
        case data(remaining: Int)
        case dataEnd
        case trailer
    }

    static let maxSizeLine = 1024

    let maxBodySize: Int
    let maxTrailerSize: Int
    private var state = State.sizeLine
    private var line: [UInt8] = []
    private var trailerBytes = 0
    private var bodySize = 0

    init(maxBodySize: Int, maxTrailerSize: Int) {
        self.maxBodySize = maxBodySize
        self.maxTrailerSize = maxTrailerSize
    }

    /// Consumes bytes of `input` from `index` on, appending chunk data to `body`.
    mutating func decode(_ input: [UInt8], from index: inout Int, into body: inout [UInt8]) -> Outcome {
        while index < input.count {
            switch state {
            case .data(let remaining):
                let take = min(remaining, input.count - index)
                body.append(contentsOf: input[index..<(index + take)])
                index += take
                state = remaining == take ? .dataEnd : .data(remaining: remaining - take)
            case .sizeLine, .dataEnd, .trailer:
                let byte = input[index]
                index += 1
                guard byte == UInt8(ascii: "\n") else {
                    line.append(byte)
                    if state == .trailer {
                        trailerBytes += 1
                        if trailerBytes > maxTrailerSize {
                            return .failed(.init(status: 431, code: "headers_too_large", message: "trailer section exceeds \(maxTrailerSize) bytes"))
                        }
                    } else if line.count > Self.maxSizeLine {
                        return .failed(.init(status: 400, code: "bad_request", message: "chunk size line too long"))
                    }
                    continue
                }
                // A line ends at LF; its CR, if any, is dropped (a bare LF is tolerated as in heads, §2.2).
                if line.last == UInt8(ascii: "\r") { line.removeLast() }
                if line.contains(UInt8(ascii: "\r")) { return .failed(.init(status: 400, code: "bad_request", message: "bare CR in chunked body")) }
                let complete = line
                line.removeAll(keepingCapacity: true)
                switch state {
                case .sizeLine:
                    switch chunkSize(complete) {
                    case .failure(let failure): return .failed(failure)
                    case .success(0): state = .trailer
                    case .success(let size): state = .data(remaining: size)
                    }
                case .dataEnd:
                    guard complete.isEmpty else { return .failed(.init(status: 400, code: "bad_request", message: "chunk data longer than its size")) }
                    state = .sizeLine
                case .trailer:
                    if complete.isEmpty { return .done }
                case .data:
                    break
                }
            }
        }
        return .needMore
    }

    /// `chunk-size [ chunk-ext ]`: hex digits, then anything after `;` (extensions are ignored, §7.1.1).
    private mutating func chunkSize(_ line: [UInt8]) -> Result<Int, HTTPReadFailure> {
        let digits = line.prefix { $0 != UInt8(ascii: ";") && $0 != UInt8(ascii: " ") && $0 != UInt8(ascii: "\t") }
        guard !digits.isEmpty else { return .failure(.init(status: 400, code: "bad_request", message: "missing chunk size")) }
        var size = 0
        // bodySize never exceeds maxBodySize, so this cannot overflow.
        let room = maxBodySize - bodySize
        for byte in digits {
            let value: Int
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): value = Int(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): value = Int(byte - UInt8(ascii: "a")) + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): value = Int(byte - UInt8(ascii: "A")) + 10
            default: return .failure(.init(status: 400, code: "bad_request", message: "invalid chunk size"))
            }
            // Checked per digit and without overflow (maxBodySize may be as large as Int.max), so a huge size fails
            // with 413 instead of trapping.
            let (shifted, overflow) = size.multipliedReportingOverflow(by: 16)
            guard !overflow, shifted <= room - value else {
                return .failure(.init(status: 413, code: "too_large", message: "the body exceeds \(maxBodySize) bytes"))
            }
            size = shifted + value
        }
        bodySize += size
        return .success(size)
    }
}
