import HeraldWebSocket

/// Feeds one server-role ``WebSocketStateMachine`` and records everything it reports and writes, checking after
/// every call that a connection which has failed or closed stays silent (RFC 6455 §7.1.7).
public struct ConnectionRun {
    public private(set) var connection: WebSocketStateMachine
    public private(set) var events: [WebSocketEvent] = []
    public private(set) var output: [UInt8] = []

    public init(_ connection: WebSocketStateMachine) { self.connection = connection }

    /// Whether a failure or close has been reported.
    public var isTerminated: Bool { events.contains { ObservedEvent($0).isTerminal } }

    /// Feeds one chunk.
    public mutating func feed(_ chunk: ArraySlice<UInt8>) {
        let wasTerminated = isTerminated
        let outputBefore = output.count
        var newEvents: [WebSocketEvent] = []
        // Moved out and back so the closure and `output` do not overlap accesses to `self` (and nothing is copied).
        var output = self.output
        self.output = []
        chunk.withUnsafeBytes { bytes in
            connection.receive(bytes, output: &output) { newEvents.append($0) }
        }
        self.output = output
        if wasTerminated {
            fuzzRequire(newEvents.isEmpty, "events after a failure or close: \(newEvents)")
            fuzzRequire(output.count == outputBefore, "bytes written after a failure or close")
        }
        events += newEvents
    }

    /// Feeds `input` in the given chunks.
    public mutating func feed(_ input: [UInt8], chunks: [Range<Int>]) {
        for range in chunks { feed(input[range]) }
    }

    /// Checks what must hold for any input to a server that never sent anything on its own:
    /// - at most one terminal event, and it is the last; the state is `.closed` exactly when there is one;
    /// - no message exceeds the limit;
    /// - the output is a sequence of well-formed unmasked, final, RSV-free server frames: a pong per ping event,
    ///   with its payload, then exactly one close frame if and only if the connection ended, carrying the failure's
    ///   code (1002, 1007, 1009 or 1011) or echoing the peer's code.
    public func checkInvariants() {
        let observed = events.map(ObservedEvent.init)
        let terminals = observed.indices.filter { observed[$0].isTerminal }
        fuzzRequire(terminals.count <= 1, "more than one terminal event: \(observed)")
        if let terminal = terminals.first { fuzzRequire(terminal == observed.count - 1, "events after the terminal one: \(observed)") }
        fuzzRequire((connection.state == .closed) == !terminals.isEmpty, "state \(connection.state) with events \(observed)")
        for event in events {
            switch event {
            case .text(let bytes): fuzzRequire(bytes.count <= connection.limits.maxMessageSize, "text message over the limit")
            case .binary(let bytes): fuzzRequire(bytes.count <= connection.limits.maxMessageSize, "binary message over the limit")
            case .ping(let bytes), .pong(let bytes): fuzzRequire(bytes.count <= 125, "control payload over 125 bytes")
            default: break
            }
        }

        guard let frames = decodeWireFrames(output) else { return fuzzRequire(false, "output is not a sequence of frames: \(output)") }
        for frame in frames {
            fuzzRequire(frame.fin && frame.reservedBits == 0 && !frame.masked, "malformed server frame \(frame)")
            fuzzRequire(frame.opcode == 0xA || frame.opcode == 0x8, "server wrote opcode \(frame.opcode) on its own")
        }
        let pongs = frames.filter { $0.opcode == 0xA }.map(\.payload)
        let pings = observed.compactMap { if case .ping(let bytes) = $0 { bytes } else { nil } }
        fuzzRequire(pongs == pings, "pongs \(pongs) do not answer pings \(pings)")
        let closes = frames.indices.filter { frames[$0].opcode == 0x8 }
        fuzzRequire(closes.count == terminals.count, "\(closes.count) close frames for events \(observed)")
        if let close = closes.first {
            fuzzRequire(close == frames.count - 1, "frames written after the close frame")
            let payload = frames[close].payload
            switch observed.last {
            case .failed(let code):
                fuzzRequire([1002, 1007, 1009, 1011].contains(code), "failure with close code \(code)")
                fuzzRequire(payload == [UInt8(code >> 8), UInt8(code & 0xFF)], "failure \(code) answered with close payload \(payload)")
            case .closed(let code?, _):
                fuzzRequire(CloseCode(rawValue: code).isValidOnWire, "accepted close code \(code)")
                fuzzRequire(payload == [UInt8(code >> 8), UInt8(code & 0xFF)], "close \(code) echoed as \(payload)")
            case .closed(nil, _):
                fuzzRequire(payload.isEmpty, "close without code answered with payload \(payload)")
            default:
                fuzzRequire(false, "close frame without a terminal event")
            }
        }
    }
}

/// Limits the harnesses choose between: the defaults, and small ones that make 1009 reachable from short inputs.
public func fuzzLimits(_ choice: UInt8) -> WebSocketLimits {
    switch choice % 4 {
    case 0: WebSocketLimits(maxFrameSize: 125, maxMessageSize: 300)
    case 1: WebSocketLimits(maxFrameSize: 1000, maxMessageSize: 1000)
    case 2: WebSocketLimits(maxFrameSize: 4096, maxMessageSize: 16384)
    default: .default
    }
}
