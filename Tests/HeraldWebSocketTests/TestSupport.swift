import HeraldTestSupport
import HeraldWebSocket
import Testing

/// Bytes from a hex string such as "88 02 03 EA" (spaces and newlines ignored).
func hex(_ text: String) -> [UInt8] {
    let digits = Array(text.utf8.filter { !$0.isWhitespaceASCII })
    var bytes: [UInt8] = []
    var index = 0
    while index + 1 < digits.count {
        bytes.append(UInt8(String(decoding: digits[index...(index + 1)], as: UTF8.self), radix: 16) ?? 0)
        index += 2
    }
    return bytes
}

extension UInt8 {
    var isWhitespaceASCII: Bool { self == 0x20 || self == 0x0A || self == 0x0D || self == 0x09 }
}

/// Hex rendering for failure messages.
func hexString(_ bytes: [UInt8]) -> String {
    bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16, uppercase: true) }.joined(separator: " ")
}

/// The masking key used by fixtures built in tests (RFC 6455 §5.7 uses 37 FA 21 3D).
let fixtureKey: (UInt8, UInt8, UInt8, UInt8) = (0x37, 0xFA, 0x21, 0x3D)

/// A masked client frame, as a browser would send it, for inputs to a server-role connection.
func clientFrame(_ opcode: WebSocketOpcode, _ payload: [UInt8], fin: Bool = true) -> [UInt8] {
    var out: [UInt8] = []
    FrameEncoder.encodeClientFrame(opcode: opcode, payload: payload, maskKey: fixtureKey, fin: fin, into: &out)
    return out
}

/// A masked client frame with a text payload.
func clientFrame(_ opcode: WebSocketOpcode, _ text: String, fin: Bool = true) -> [UInt8] {
    clientFrame(opcode, Array(text.utf8), fin: fin)
}

/// An unmasked server frame, for inputs to a client-role connection.
func serverFrame(_ opcode: WebSocketOpcode, _ payload: [UInt8], fin: Bool = true) -> [UInt8] {
    var out: [UInt8] = []
    FrameEncoder.encodeServerFrame(opcode: opcode, payload: payload, fin: fin, into: &out)
    return out
}

/// A frame as decoded from bytes we wrote, with the mask removed.
struct DecodedFrame: Hashable, CustomStringConvertible {
    var fin: Bool
    var opcode: WebSocketOpcode
    var payload: [UInt8]
    var masked: Bool
    var description: String { "\(opcode)(fin: \(fin), masked: \(masked), \(hexString(payload)))" }
}

/// Decodes frames written by an endpoint of role `sender`; `nil` if they do not parse completely.
func decodeFrames(_ bytes: [UInt8], sentBy sender: WebSocketRole) -> [DecodedFrame]? {
    var parser = FrameParser(role: sender == .client ? .server : .client, limits: .init(maxFrameSize: .max, maxMessageSize: .max))
    var frames: [DecodedFrame] = []
    var payload: [UInt8] = []
    var cursor = 0
    return bytes.withUnsafeBytes { raw -> [DecodedFrame]? in
        while true {
            switch parser.next(raw, cursor: &cursor) {
            case .needMore: return parser.isAtFrameBoundary ? frames : nil
            case .failed: return nil
            case .header: payload = []
            case .payload(let chunk, _): payload.append(contentsOf: chunk)
            case .frameEnd(let header):
                if let key = header.maskKey { Masking.apply(key, to: &payload, range: 0..<payload.count) }
                frames.append(DecodedFrame(fin: header.fin, opcode: header.opcode, payload: payload, masked: header.maskKey != nil))
            }
        }
    }
}

/// Everything a connection produced from an input: its events, the bytes it wrote and its final state.
/// For a client-role connection the written bytes are masked with random keys, so they are compared decoded.
struct Transcript: Equatable, CustomStringConvertible {
    var events: [WebSocketEvent]
    var output: [UInt8]
    var decodedOutput: [DecodedFrame]?
    var state: WebSocketConnectionState

    static func == (lhs: Transcript, rhs: Transcript) -> Bool {
        lhs.events.map(withoutReason) == rhs.events.map(withoutReason) && lhs.state == rhs.state && lhs.decodedOutput == rhs.decodedOutput
    }

    var description: String {
        "events: \(events), output: \(hexString(output)), state: \(state)"
    }
}

/// A connection plus what it has produced so far; the unit ParserVerifier replays into.
struct ConnectionSession {
    var connection: WebSocketStateMachine
    var events: [WebSocketEvent] = []
    var output: [UInt8] = []
    /// How many bytes had been fed when each event arrived.
    var eventOffsets: [Int] = []
    var fed = 0

    init(role: WebSocketRole, limits: WebSocketLimits = .default) {
        connection = WebSocketStateMachine(role: role, limits: limits)
    }

    mutating func feed(_ bytes: UnsafeRawBufferPointer) {
        var newEvents: [WebSocketEvent] = []
        connection.receive(bytes, output: &output) { newEvents.append($0) }
        fed += bytes.count
        events += newEvents
        eventOffsets += newEvents.map { _ in fed }
    }

    mutating func feed(_ bytes: [UInt8]) { bytes.withUnsafeBytes { feed($0) } }

    var transcript: Transcript {
        Transcript(events: events, output: output, decodedOutput: decodeFrames(output, sentBy: connection.role), state: connection.state)
    }
}

/// Checks that `input` produces `events`, writes `output` and ends in `state`, however it is chunked.
///
/// For inputs over 2 KiB only a sample of split points is tried, to keep the suite fast.
func expectConnection(
    role: WebSocketRole = .server, limits: WebSocketLimits = .default, _ input: [UInt8],
    events: [WebSocketEvent], writes output: [UInt8] = [], state: WebSocketConnectionState = .open,
    sourceLocation: SourceLocation = #_sourceLocation
) {
    // For a client, `output` is written unmasked in the test; the connection's real bytes are masked with random keys.
    let expectedFrames = role == .server
        ? decodeFrames(output, sentBy: .server)
        : decodeFrames(output, sentBy: .server)?.map { DecodedFrame(fin: $0.fin, opcode: $0.opcode, payload: $0.payload, masked: true) }
    let expected = Transcript(events: events, output: output, decodedOutput: expectedFrames, state: state)
    var chunkings: [ParserVerifier.Chunking]?
    if input.count > 2048 {
        chunkings = [.whole, .oneBytePerCall] + (1...16).map { .split(at: $0) } + [.split(at: input.count - 1)]
            + ParserVerifier.defaultSeeds.map { .seeded($0) }
    }
    let mismatches = ParserVerifier.verify(
        input, expecting: expected, chunkings: chunkings,
        makeSession: { ConnectionSession(role: role, limits: limits) },
        feed: { $0.feed($1) }, transcript: { $0.transcript })
    #expect(mismatches.isEmpty, "\(mismatches.prefix(3))", sourceLocation: sourceLocation)
    // The exact bytes written back matter (server role: deterministic; client role: masked, checked decoded above).
    if role == .server {
        var session = ConnectionSession(role: role, limits: limits)
        session.feed(input)
        #expect(hexString(session.output) == hexString(output), sourceLocation: sourceLocation)
    }
}

/// Close frame bytes a server writes when failing with 1002, 1007 and 1009 (status code only).
enum ServerClose {
    /// 88 02 03 EA: FIN+close, length 2, code 1002 (protocol error).
    static let protocolError = hex("88 02 03 EA")
    /// 88 02 03 EF: FIN+close, length 2, code 1007 (invalid payload data).
    static let invalidPayload = hex("88 02 03 EF")
    /// 88 02 03 F1: FIN+close, length 2, code 1009 (message too big).
    static let tooBig = hex("88 02 03 F1")
}

/// A `.failed` event with `code`; transcripts compare failures by close code only, not by the log text.
func failure(_ code: CloseCode) -> WebSocketEvent { .failed(WebSocketProtocolError(closeCode: code, reason: "")) }

/// The event with a failure's reason text removed.
func withoutReason(_ event: WebSocketEvent) -> WebSocketEvent {
    if case .failed(let error) = event { return failure(error.closeCode) }
    return event
}

/// A `.failed` event matcher: compares only the close code.
func failedCode(_ events: [WebSocketEvent]) -> CloseCode? {
    for case .failed(let error) in events { return error.closeCode }
    return nil
}

extension WebSocketEvent {
    /// A text message event written as a string in expectations; the machine delivers the UTF-8 bytes.
    static func text(_ string: String) -> WebSocketEvent { .text(Array(string.utf8)) }
}
