/// One HTTP/1.1 request as a push service delivers it (RFC 8030 §5: a POST with the encrypted body), read from bytes
/// as they arrive. No IO: the endpoint feeds it and asks whether a whole request is there.
struct PushEndpointRequest {
    enum Parse: Equatable {
        case needMore
        case complete(method: String, path: String, headers: [String: String], body: [UInt8])
        /// Not something this endpoint takes; answered with `status` and closed.
        case refused(status: Int, reason: String)
    }

    /// A push body is at most 4096 bytes (RFC 8030 §7.2); the head of a well-behaved sender a few hundred.
    static let maxHead = 16 * 1024
    static let maxBody = 8 * 1024

    private(set) var buffer: [UInt8] = []

    mutating func append(_ bytes: ArraySlice<UInt8>) {
        buffer += bytes
    }

    func parse() -> Parse {
        guard let headEnd = Self.endOfHead(in: buffer) else {
            return buffer.count > Self.maxHead ? .refused(status: 431, reason: "request head too large") : .needMore
        }
        let lines = String(decoding: buffer[..<headEnd], as: UTF8.self).split(separator: "\r\n", omittingEmptySubsequences: false)
        let requestLine = lines.first?.split(separator: " ") ?? []
        guard requestLine.count == 3, requestLine[2].hasPrefix("HTTP/1.") else { return .refused(status: 400, reason: "not an HTTP/1.x request") }
        var headers: [String: String] = [:]
        for line in lines.dropFirst() where !line.isEmpty {
            guard let colon = line.firstIndex(of: ":") else { return .refused(status: 400, reason: "malformed header line") }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: " \t")
        }
        if headers["transfer-encoding"] != nil { return .refused(status: 411, reason: "send a Content-Length") }
        let length = headers["content-length"].flatMap { Int($0) } ?? 0
        guard length >= 0, length <= Self.maxBody else { return .refused(status: 413, reason: "a push body is at most \(Self.maxBody) bytes") }
        let bodyStart = headEnd + 4
        guard buffer.count >= bodyStart + length else { return .needMore }
        return .complete(method: String(requestLine[0]), path: String(requestLine[1]), headers: headers, body: Array(buffer[bodyStart..<bodyStart + length]))
    }

    private static func endOfHead(in bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        for index in 0...(bytes.count - 4) where bytes[index] == 13 && bytes[index + 1] == 10 && bytes[index + 2] == 13 && bytes[index + 3] == 10 {
            return index
        }
        return nil
    }
}

extension Substring {
    fileprivate func trimmingCharacters(in set: String) -> String {
        var view = self
        while let first = view.first, set.contains(first) { view = view.dropFirst() }
        while let last = view.last, set.contains(last) { view = view.dropLast() }
        return String(view)
    }
}
