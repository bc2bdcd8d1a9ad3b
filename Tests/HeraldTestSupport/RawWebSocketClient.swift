import Glibc
import HeraldWebSocket

/// A blocking, deliberately naive WebSocket client for attacking the server in tests.
///
/// It sends exactly the bytes it is told to (any opcode, RSV bits, masked or not, a lying length header, HTTP
/// garbage) and reads the server's frames back with deadlines. It never validates what the server sends beyond
/// framing, so tests assert on what really came over the wire: the exact close code, the exact echoed bytes.
///
/// ```swift
/// let client = try RawWebSocketClient.connect(port: server.port, path: "/echo")
/// try client.sendFrame(opcode: 0x1, payload: Array("hi".utf8))
/// #expect(try client.readFrame().payload == Array("hi".utf8))
/// try client.sendFrame(opcode: 0x9, payload: Array(repeating: 0, count: 126))   // §5.5: too long
/// #expect(try client.readCloseCode() == 1002)
/// ```
public final class RawWebSocketClient {
    /// The socket descriptor (blocking, CLOEXEC).
    public let fd: Int32
    /// Default deadline for reads, in milliseconds.
    public var timeoutMilliseconds: Int
    /// Bytes read but not yet consumed by a frame or response parse.
    private var buffer: [UInt8] = []
    private var bufferStart = 0
    private var isClosed = false

    /// Opens a TCP connection to `host:port` (no WebSocket handshake yet).
    ///
    /// - Parameters:
    ///   - host: a literal IPv4 address; tests use loopback only.
    ///   - port: the server's port.
    ///   - timeoutMilliseconds: default deadline for every read.
    public init(host: String = "127.0.0.1", port: Int, timeoutMilliseconds: Int = 5000) throws(RawClientError) {
        self.timeoutMilliseconds = timeoutMilliseconds
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw .io(call: "socket", errno: errno) }
        self.fd = fd
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        inet_pton(AF_INET, host, &address.sin_addr)
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        if result != 0 {
            let code = errno
            Glibc.close(fd)
            isClosed = true
            throw .io(call: "connect", errno: code)
        }
        var one: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
    }

    /// Connects and completes the opening handshake (RFC 6455 §4.1), checking the 101 and `Sec-WebSocket-Accept`.
    public static func connect(host: String = "127.0.0.1", port: Int, path: String = "/echo",
                               extraHeaders: [(String, String)] = [], timeoutMilliseconds: Int = 5000) throws(RawClientError) -> RawWebSocketClient {
        let client = try RawWebSocketClient(host: host, port: port, timeoutMilliseconds: timeoutMilliseconds)
        do {
            try client.handshake(path: path, extraHeaders: extraHeaders)
        } catch {
            client.close()
            throw error
        }
        return client
    }

    deinit { close() }

    /// Closes the socket (idempotent).
    public func close() {
        guard !isClosed else { return }
        isClosed = true
        Glibc.close(fd)
    }

    // MARK: - Handshake and HTTP

    /// A request for `path` with a fresh `Sec-WebSocket-Key`; returns the request bytes and the key.
    public static func upgradeRequest(path: String, host: String = "127.0.0.1", version: String = "13",
                                      extraHeaders: [(String, String)] = []) -> (bytes: [UInt8], key: String) {
        var generator = SystemRandomNumberGenerator()
        let key = Base64.encode((0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) })
        var text = "GET \(path) HTTP/1.1\r\nHost: \(host)\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        text += "Sec-WebSocket-Key: \(key)\r\nSec-WebSocket-Version: \(version)\r\n"
        for (name, value) in extraHeaders { text += "\(name): \(value)\r\n" }
        text += "\r\n"
        return (Array(text.utf8), key)
    }

    /// The `Sec-WebSocket-Accept` value for `key` (§4.2.2 step 5.4).
    public static func acceptValue(for key: String) -> String {
        Base64.encode(SHA1.hash(Array((key + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11").utf8)))
    }

    /// Sends an upgrade request and checks the answer is a correct 101.
    public func handshake(path: String, extraHeaders: [(String, String)] = []) throws(RawClientError) {
        let request = Self.upgradeRequest(path: path, extraHeaders: extraHeaders)
        try send(request.bytes)
        let response = try readHTTPResponse()
        guard response.status == 101 else { throw .unexpected("expected 101, got \(response.status) \(response.body)") }
        let expected = Self.acceptValue(for: request.key)
        guard response.header("Sec-WebSocket-Accept") == expected else {
            throw .unexpected("Sec-WebSocket-Accept \(response.header("Sec-WebSocket-Accept") ?? "missing") != \(expected)")
        }
    }

    /// Reads one HTTP response head (and a body of `Content-Length` bytes, if given).
    public func readHTTPResponse(timeoutMilliseconds: Int? = nil) throws(RawClientError) -> RawHTTPResponse {
        let deadline = Self.deadline(after: timeoutMilliseconds ?? self.timeoutMilliseconds)
        var headEnd: Int?
        while headEnd == nil {
            headEnd = findHeadEnd()
            if headEnd == nil { try fill(deadline: deadline) }
        }
        guard let end = headEnd else { throw .unexpected("no head") }
        let headText = String(decoding: buffer[bufferStart..<end], as: UTF8.self)
        bufferStart = end + 4
        var lines = headText.split(separator: "\r\n", omittingEmptySubsequences: false).map(String.init)
        guard !lines.isEmpty else { throw .unexpected("empty response head") }
        let statusLine = lines.removeFirst()
        let parts = statusLine.split(separator: " ", maxSplits: 2)
        guard parts.count >= 2, parts[0].hasPrefix("HTTP/1."), let status = Int(parts[1]) else {
            throw .unexpected("bad status line \(statusLine)")
        }
        var headers: [(String, String)] = []
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers.append((String(line[..<colon]), String(line[line.index(after: colon)...]).trimmingSpaces()))
        }
        var response = RawHTTPResponse(status: status, headers: headers, body: "")
        if let length = response.header("Content-Length").flatMap({ Int($0) }), length > 0 {
            while buffer.count - bufferStart < length { try fill(deadline: deadline) }
            response.body = String(decoding: buffer[bufferStart..<(bufferStart + length)], as: UTF8.self)
            bufferStart += length
        }
        return response
    }

    private func findHeadEnd() -> Int? {
        guard buffer.count - bufferStart >= 4 else { return nil }
        var index = bufferStart
        while index + 3 < buffer.count {
            if buffer[index] == 13, buffer[index + 1] == 10, buffer[index + 2] == 13, buffer[index + 3] == 10 { return index }
            index += 1
        }
        return nil
    }

    // MARK: - Sending

    /// Sends raw bytes (blocking until the kernel has taken them all).
    public func send(_ bytes: [UInt8]) throws(RawClientError) {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL)) }
            if sent < 0 {
                if errno == EINTR { continue }
                throw .io(call: "send", errno: errno)
            }
            offset += sent
        }
    }

    /// Sends a text string's bytes as-is (e.g. an HTTP request).
    public func send(_ text: String) throws(RawClientError) { try send(Array(text.utf8)) }

    /// Encodes one frame exactly as described, with nothing checked (RFC 6455 §5.2).
    ///
    /// - Parameters:
    ///   - opcode: any 4-bit value, reserved ones included.
    ///   - payload: the unmasked payload.
    ///   - fin: the FIN bit.
    ///   - rsv: RSV1-3 as the 3-bit value (e.g. 0b100 for RSV1).
    ///   - masked: whether to set the MASK bit and mask the payload (clients MUST, §5.1).
    public static func frame(opcode: UInt8, payload: [UInt8], fin: Bool = true, rsv: UInt8 = 0, masked: Bool = true) -> [UInt8] {
        var bytes: [UInt8] = [(fin ? 0x80 : 0) | (rsv & 0x7) << 4 | (opcode & 0x0F)]
        let maskBit: UInt8 = masked ? 0x80 : 0
        if payload.count <= 125 {
            bytes.append(maskBit | UInt8(payload.count))
        } else if payload.count <= 0xFFFF {
            bytes += [maskBit | 126, UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)]
        } else {
            bytes.append(maskBit | 127)
            for shift in stride(from: 56, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: UInt64(payload.count) >> UInt64(shift))) }
        }
        if masked {
            var generator = SystemRandomNumberGenerator()
            let key = (0..<4).map { _ in UInt8.random(in: 0...255, using: &generator) }
            bytes += key
            bytes.reserveCapacity(bytes.count + payload.count)
            for (index, byte) in payload.enumerated() { bytes.append(byte ^ key[index & 3]) }
        } else {
            bytes += payload
        }
        return bytes
    }

    /// Sends one frame; see ``frame(opcode:payload:fin:rsv:masked:)``.
    public func sendFrame(opcode: UInt8, payload: [UInt8] = [], fin: Bool = true, rsv: UInt8 = 0, masked: Bool = true) throws(RawClientError) {
        try send(Self.frame(opcode: opcode, payload: payload, fin: fin, rsv: rsv, masked: masked))
    }

    /// Sends a text message in one frame.
    public func sendText(_ text: String) throws(RawClientError) { try sendFrame(opcode: 0x1, payload: Array(text.utf8)) }

    /// Sends a close frame with `code` (if any) and a raw reason payload.
    public func sendClose(code: UInt16?, reason: [UInt8] = []) throws(RawClientError) {
        var payload: [UInt8] = []
        if let code { payload = [UInt8(code >> 8), UInt8(code & 0xFF)] }
        try sendFrame(opcode: 0x8, payload: payload + reason)
    }

    // MARK: - Receiving

    /// Reads one frame (any opcode) within the deadline. Server frames must be unmasked; a masked one is reported
    /// as ``RawClientError/unexpected(_:)``.
    public func readFrame(timeoutMilliseconds: Int? = nil) throws(RawClientError) -> RawFrame {
        let deadline = Self.deadline(after: timeoutMilliseconds ?? self.timeoutMilliseconds)
        while true {
            if let frame = try parseFrame() { return frame }
            try fill(deadline: deadline)
        }
    }

    /// Reads frames until a complete data message arrives (reassembling fragments); control frames other than
    /// close are skipped. Returns the first frame's opcode and the whole payload.
    public func readMessage(timeoutMilliseconds: Int? = nil) throws(RawClientError) -> RawFrame {
        var first: RawFrame?
        while true {
            let frame = try readFrame(timeoutMilliseconds: timeoutMilliseconds)
            switch frame.opcode {
            case 0x8: throw .closedByServer(code: frame.closeCode)
            case 0x9, 0xA: continue
            case 0x0:
                guard var message = first else { throw .unexpected("continuation without start") }
                message.payload += frame.payload
                if frame.fin { return message }
                first = message
            default:
                guard first == nil else { throw .unexpected("new message inside a fragmented one") }
                if frame.fin { return frame }
                first = frame
            }
        }
    }

    /// Reads frames until a close frame and returns its code (1005 when it had no payload); returns 1006 if the
    /// server dropped TCP without a close frame. Data frames before the close are skipped.
    public func readCloseCode(timeoutMilliseconds: Int? = nil) throws(RawClientError) -> UInt16 {
        while true {
            let frame: RawFrame
            do {
                frame = try readFrame(timeoutMilliseconds: timeoutMilliseconds)
            } catch .connectionClosed {
                return 1006
            } catch .io(_, let code) where code == ECONNRESET {
                return 1006
            }
            if frame.opcode == 0x8 { return frame.closeCode ?? 1005 }
        }
    }

    /// Waits until the server closes TCP (read returns 0 or the connection is reset). Throws `.timeout` otherwise.
    public func waitForEOF(timeoutMilliseconds: Int? = nil) throws(RawClientError) {
        let deadline = Self.deadline(after: timeoutMilliseconds ?? self.timeoutMilliseconds)
        while true {
            do {
                try fill(deadline: deadline)
                bufferStart = buffer.count  // discard whatever arrives before EOF
            } catch .connectionClosed {
                return
            } catch .io(_, let code) where code == ECONNRESET {
                return
            }
        }
    }

    /// Reads everything until EOF and returns it as text (for plain HTTP answers).
    public func readToEOF(timeoutMilliseconds: Int? = nil) throws(RawClientError) -> String {
        let deadline = Self.deadline(after: timeoutMilliseconds ?? self.timeoutMilliseconds)
        while true {
            do {
                try fill(deadline: deadline)
            } catch .connectionClosed {
                break
            } catch .io(_, let code) where code == ECONNRESET {
                break
            }
        }
        defer { bufferStart = buffer.count }
        return String(decoding: buffer[bufferStart...], as: UTF8.self)
    }

    private func parseFrame() throws(RawClientError) -> RawFrame? {
        let available = buffer.count - bufferStart
        guard available >= 2 else { return nil }
        let first = buffer[bufferStart], second = buffer[bufferStart + 1]
        if second & 0x80 != 0 { throw .unexpected("server sent a masked frame (RFC 6455 §5.1 forbids it)") }
        var headerSize = 2
        var length = Int(second & 0x7F)
        if length == 126 {
            guard available >= 4 else { return nil }
            length = Int(buffer[bufferStart + 2]) << 8 | Int(buffer[bufferStart + 3])
            headerSize = 4
        } else if length == 127 {
            guard available >= 10 else { return nil }
            var wide: UInt64 = 0
            for index in 2..<10 { wide = wide << 8 | UInt64(buffer[bufferStart + index]) }
            guard wide < 1 << 40 else { throw .unexpected("server sent a frame length of \(wide)") }
            length = Int(wide)
            headerSize = 10
        }
        guard available >= headerSize + length else { return nil }
        let payloadStart = bufferStart + headerSize
        let frame = RawFrame(fin: first & 0x80 != 0, rsv: (first >> 4) & 0x7, opcode: first & 0x0F,
                             payload: Array(buffer[payloadStart..<(payloadStart + length)]))
        bufferStart = payloadStart + length
        return frame
    }

    /// Reads more bytes into the buffer, waiting at most until `deadline`.
    private func fill(deadline: Int64) throws(RawClientError) {
        if bufferStart > 0, bufferStart == buffer.count {
            buffer.removeAll(keepingCapacity: true)
            bufferStart = 0
        } else if bufferStart > 1 << 20 {
            buffer.removeFirst(bufferStart)
            bufferStart = 0
        }
        while true {
            let remaining = deadline - Self.nowMilliseconds()
            if remaining <= 0 { throw .timeout }
            var pollfd = Glibc.pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&pollfd, 1, Int32(min(remaining, Int64(Int32.max))))
            if ready < 0 {
                if errno == EINTR { continue }
                throw .io(call: "poll", errno: errno)
            }
            if ready == 0 { throw .timeout }
            break
        }
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        if count < 0 { throw .io(call: "recv", errno: errno) }
        if count == 0 { throw .connectionClosed }
        buffer.append(contentsOf: chunk[0..<count])
    }

    // MARK: - Time

    static func nowMilliseconds() -> Int64 {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return Int64(spec.tv_sec) * 1000 + Int64(spec.tv_nsec) / 1_000_000
    }

    static func deadline(after milliseconds: Int) -> Int64 { nowMilliseconds() + Int64(milliseconds) }
}

/// One frame as the server sent it.
public struct RawFrame: Sendable, Hashable {
    /// The FIN bit.
    public var fin: Bool
    /// RSV1-3 as a 3-bit value.
    public var rsv: UInt8
    /// The 4-bit opcode.
    public var opcode: UInt8
    /// The payload (server frames are unmasked).
    public var payload: [UInt8]

    /// For a close frame with a body, its status code (§5.5.1).
    public var closeCode: UInt16? {
        guard opcode == 0x8, payload.count >= 2 else { return nil }
        return UInt16(payload[0]) << 8 | UInt16(payload[1])
    }

    /// The payload as text (lossy; for messages).
    public var text: String { String(decoding: payload, as: UTF8.self) }
}

/// A plain HTTP response read by ``RawWebSocketClient/readHTTPResponse(timeoutMilliseconds:)``.
public struct RawHTTPResponse: Sendable {
    /// The status code, e.g. 101 or 404.
    public var status: Int
    /// Header fields in order.
    public var headers: [(String, String)]
    /// The body, if a Content-Length was given.
    public var body: String

    /// The first value of `name`, compared case-insensitively.
    public func header(_ name: String) -> String? {
        headers.first { $0.0.lowercased() == name.lowercased() }?.1
    }
}

/// Why a raw client call failed.
public enum RawClientError: Error, Equatable, CustomStringConvertible {
    /// Nothing (or not enough) arrived before the deadline.
    case timeout
    /// The server closed TCP (read returned 0).
    case connectionClosed
    /// The server sent a close frame where a message was expected.
    case closedByServer(code: UInt16?)
    /// A system call failed.
    case io(call: String, errno: Int32)
    /// The server sent something the test did not expect.
    case unexpected(String)

    public var description: String {
        switch self {
        case .timeout: "timed out"
        case .connectionClosed: "connection closed by server"
        case .closedByServer(let code): "server sent close \(code.map(String.init) ?? "without code")"
        case .io(let call, let code): "\(call) failed: \(String(cString: strerror(code))) (errno \(code))"
        case .unexpected(let what): what
        }
    }
}

extension String {
    func trimmingSpaces() -> String {
        var slice = Substring(self)
        while slice.first == " " || slice.first == "\t" { slice = slice.dropFirst() }
        while slice.last == " " || slice.last == "\t" { slice = slice.dropLast() }
        return String(slice)
    }
}
