import Glibc
import HeraldProtocol
import HeraldWebSocket

/// One client WebSocket to `/sync`: a non-blocking socket, the opening handshake with the token, and the
/// RFC 6455 client state machine. Owned by a ``BenchLoop`` (single thread); scenarios call ``send(_:)``.
final class BenchConnection {
    enum Phase { case connecting, handshaking, open, closed }

    /// Index of the device in its scenario (user/device tables are indexed by it).
    let tag: Int
    private(set) var fd: Int32 = -1
    private(set) var phase: Phase = .connecting
    private let key = WebSocketHandshake.randomClientKey()
    private var headParser = HTTPResponseHeadParser()
    private var socketProtocol = WebSocketStateMachine(role: .client)
    /// The message handed to a receiver, reused.
    private var message: [UInt8] = []
    /// Bytes not yet written, from `outputStart` on.
    var output: [UInt8] = []
    var outputStart = 0
    /// Whether the loop has this connection on its flush list.
    var queuedForFlush = false
    /// Whether EPOLLOUT is armed.
    var wantsWritable = false
    /// Request ids: the next one to use.
    var nextRequestId = 1
    /// When the connection attempt began (connect scenario, fleet setup).
    var startedAt: UInt64 = 0

    init(tag: Int) { self.tag = tag }

    /// Starts a non-blocking connect to 127.0.0.1:`port` and queues the upgrade request. With a `source` address
    /// (host byte order, see ``SourceAddresses``) the socket is bound to it first, its port still left to `connect`.
    func open(port: Int, path: String, token: String, source: UInt32? = nil) throws(BenchError) {
        let socketFD = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard socketFD >= 0 else {
            let code = errno
            throw BenchError("socket: \(String(cString: strerror(code)))" + (code == EMFILE ? " (the open-file limit is reached)" : ""))
        }
        var one: Int32 = 1
        _ = setsockopt(socketFD, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        if let source {
            do throws(BenchError) { try Self.bind(socketFD, to: source) } catch {
                close(socketFD)
                throw error
            }
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian  // 127.0.0.1 only
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(socketFD, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        if result != 0 && errno != EINPROGRESS {
            let code = errno
            close(socketFD)
            let from = source.map { " from \(SourceAddresses.text($0))" } ?? ""
            let hint = code == EADDRNOTAVAIL ? " (no ephemeral port left for this source address: use more --source-addresses)" : ""
            throw BenchError("connect 127.0.0.1:\(port)\(from): \(String(cString: strerror(code)))\(hint)")
        }
        fd = socketFD
        phase = .connecting
        output = WebSocketHandshake.clientRequest(
            host: "127.0.0.1:\(port)", path: path, key: key, subprotocols: [HeraldProtocolVersion.subprotocol],
            extraHeaders: [("Authorization", "Bearer \(token)")])
        outputStart = 0
    }

    /// Binds `socketFD` to `address`:0 with IP_BIND_ADDRESS_NO_PORT, so that the port is picked by `connect`, unique
    /// per four-tuple, rather than by `bind`, which would need it free on the address for every destination and so
    /// would run out of ports as fast as one address does.
    private static func bind(_ socketFD: Int32, to address: UInt32) throws(BenchError) {
        var one: Int32 = 1
        guard setsockopt(socketFD, Int32(IPPROTO_IP), IP_BIND_ADDRESS_NO_PORT, &one, socklen_t(MemoryLayout<Int32>.size)) == 0 else {
            throw BenchError("setsockopt IP_BIND_ADDRESS_NO_PORT: \(String(cString: strerror(errno)))")
        }
        var local = sockaddr_in()
        local.sin_family = sa_family_t(AF_INET)
        local.sin_port = 0
        local.sin_addr.s_addr = address.bigEndian
        let result = withUnsafePointer(to: &local) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.bind(socketFD, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard result == 0 else { throw BenchError("bind \(SourceAddresses.text(address)): \(String(cString: strerror(errno)))") }
    }

    /// The address the kernel gave this socket's end (`getsockname`), in host byte order; nil once closed.
    func localAddress() -> UInt32? {
        guard fd >= 0 else { return nil }
        var local = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let result = withUnsafeMutablePointer(to: &local) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard result == 0, local.sin_family == sa_family_t(AF_INET) else { return nil }
        return UInt32(bigEndian: local.sin_addr.s_addr)
    }

    /// Queues one text message (a JSON request); the loop writes it at the end of this pass.
    func send(_ text: String) {
        socketProtocol.sendText(text, into: &output)
    }

    /// Queues a close frame (1000); the socket is closed by the loop once the server answers or drops.
    func startClose() {
        socketProtocol.close(code: .normal, reason: "", into: &output)
    }

    var hasPendingOutput: Bool { outputStart < output.count }

    /// Writes what the socket takes. Returns false on a socket error.
    func flush() -> Bool {
        while outputStart < output.count {
            let written = output.withUnsafeBytes { raw -> Int in
                guard let base = raw.baseAddress else { return 0 }
                return Glibc.send(fd, base + outputStart, raw.count - outputStart, Int32(MSG_NOSIGNAL))
            }
            if written > 0 {
                outputStart += written
                continue
            }
            if written < 0 && errno == EINTR { continue }
            if written < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) { break }
            return false
        }
        if outputStart == output.count {
            output.removeAll(keepingCapacity: output.capacity <= 1 << 20)
            outputStart = 0
        } else if outputStart > 1 << 16 {
            output.removeFirst(outputStart)
            outputStart = 0
        }
        return true
    }

    /// What one read produced.
    enum Input {
        case opened
        /// A text message, at this range of ``message(_:)``'s bytes until the next read.
        case text(Range<Int>)
        /// A text message where it lies in the bytes just read (valid until the next read).
        case textInRead(UnsafeRawBufferPointer)
        case rejected(String)
        case closed(String)
    }

    /// Feeds bytes read from the socket; appends what happened to `events`.
    func receive(_ bytes: UnsafeRawBufferPointer, into events: inout [Input]) {
        switch phase {
        case .connecting, .handshaking:
            phase = .handshaking
            switch headParser.parse(bytes) {
            case .needMore:
                return
            case .failed(let reason):
                phase = .closed
                events.append(.rejected("bad HTTP response: \(reason)"))
            case .complete(let head, let consumed):
                switch WebSocketHandshake.validateServerResponse(head, key: key, offeredSubprotocols: [HeraldProtocolVersion.subprotocol]) {
                case .failure(let failure):
                    phase = .closed
                    events.append(.rejected(failure.description))
                case .success:
                    phase = .open
                    events.append(.opened)
                    if consumed < bytes.count { frames(UnsafeRawBufferPointer(rebasing: bytes[consumed...]), into: &events) }
                }
            }
        case .open:
            frames(bytes, into: &events)
        case .closed:
            return
        }
    }

    private func frames(_ bytes: UnsafeRawBufferPointer, into events: inout [Input]) {
        let taken = wholeTextFrames(bytes, into: &events)
        guard taken < bytes.count else { return }
        // The load generator keeps no keep-alive deadlines, so the clock is not read.
        socketProtocol.receive(UnsafeRawBufferPointer(rebasing: bytes[taken...]), now: 0)
        for action in socketProtocol.actions {
            switch action {
            case .deliver(let opcode, let range):
                if opcode == .text { events.append(.text(range)) }
            case .write(let range):
                output.append(contentsOf: socketProtocol.outgoing[range])
            case .peerClosed(let code, _):
                events.append(.closed("server closed (\(code.map { String($0.rawValue) } ?? "no code"))"))
            case .failed(let error):
                events.append(.closed("protocol error: \(error)"))
            case .receivedPing, .receivedPong, .closeStarted, .closeTransport, .setTimer:
                break
            }
        }
        if socketProtocol.state == .closed { phase = .closed }
    }

    /// Hands `body` each whole text frame at the start of `bytes` where it lies, while the connection is open (the
    /// frames ``receive(_:into:)`` would list as ``Input/textInRead(_:)``); returns how many bytes were taken. For the
    /// loop's per-delivery path: listing every frame as an `Input` and walking the list again copied each case, a
    /// retain and release per delivery.
    func takeWholeTextFrames(_ bytes: UnsafeRawBufferPointer, _ body: (UnsafeBufferPointer<UInt8>) -> Void) -> Int {
        var offset = 0
        while phase == .open, let frame = socketProtocol.wholeMessage(in: bytes, at: offset, maxPayload: .max), frame.opcode == .text {
            body(UnsafeRawBufferPointer(rebasing: bytes[frame.payload]).assumingMemoryBound(to: UInt8.self))
            offset = frame.end
        }
        return offset
    }

    /// The text frames at the start of `bytes` that are whole messages
    /// (``WebSocketStateMachine/wholeMessage(in:at:maxPayload:)``: nearly every frame of a load), handed out where they lie in the read buffer, without the state machine's copies
    /// into its message buffers; what follows the last of them goes to the state machine. A server's frames are not
    /// masked (§5.1), so there is nothing to unmask. Their UTF-8 is not validated: the generator reads only its own
    /// ASCII fields, and the server's output is checked for it by the test suite. Returns how many bytes were taken.
    private func wholeTextFrames(_ bytes: UnsafeRawBufferPointer, into events: inout [Input]) -> Int {
        var offset = 0
        while let frame = socketProtocol.wholeMessage(in: bytes, at: offset, maxPayload: .max), frame.opcode == .text {
            events.append(.textInRead(UnsafeRawBufferPointer(rebasing: bytes[frame.payload])))
            offset = frame.end
        }
        return offset
    }

    /// The bytes of a message the last read delivered (``Input/text(_:)``), copied into a reused buffer so that the
    /// receiver may send from `body`.
    func withMessage<Result>(_ range: Range<Int>, _ body: (UnsafeBufferPointer<UInt8>) -> Result) -> Result {
        message.removeAll(keepingCapacity: true)
        message.append(contentsOf: socketProtocol.received[range])
        return message.withUnsafeBufferPointer(body)
    }

    /// Closes the socket (the loop has already removed it from epoll).
    func closeSocket() {
        if fd >= 0 { close(fd) }
        fd = -1
        phase = .closed
        socketProtocol.abandon()
        output = []
        outputStart = 0
    }

    /// A fresh state machine for reconnecting the same device (connect scenario).
    func reset() {
        closeSocket()
        headParser = HTTPResponseHeadParser()
        socketProtocol = WebSocketStateMachine(role: .client)
        nextRequestId = 1
    }
}
