import FuzzSupport
import HeraldDeflate
import HeraldWebSocket

/// Structure-aware fuzzing of a server-role ``WebSocketStateMachine``: the input is a program of frame-level
/// operations (a fragmented text message, a compressed message, a ping, a close with a bad code, a reserved
/// opcode, ...), which the harness encodes as a real client would, with random mask keys and length encodings.
/// Mutating the program mutates valid traffic, so the fuzzer explores deep states (fragmentation with interleaved
/// control frames, permessage-deflate context takeover, limits hit mid-message) instead of dying at the header.
///
/// The harness also keeps a model of what the connection must report: for traffic built only from the
/// operations whose outcome is specified (everything but raw garbage and bit flips), the events and the bytes
/// written back must equal the model's exactly. Raw garbage and bit flips switch the model off; then only
/// ``ConnectionRun/checkInvariants()`` and chunking independence are checked.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzWebSocketFrames(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    var reader = FuzzReader(fuzzInput(data, size))
    let config = reader.byte()
    let seed = reader.uint64()
    let limits = fuzzLimits(config)
    let parameters: PerMessageDeflateParameters? = config & 0x04 == 0 ? nil : deflateParameters(reader.byte())
    let maxChunk = [1, 7, 64, 1 << 20][Int(config >> 3) & 3]

    var program = Program(limits: limits, parameters: parameters)
    program.generate(from: &reader)

    // Byte-level chunking of a 70 KB message costs 70 000 calls for nothing the headers do not already cover.
    let chunks = chunkRanges(count: program.wire.count, seed: seed, maxChunk: program.wire.count > 16384 ? max(maxChunk, 4096) : maxChunk)
    var runs: [ConnectionRun] = []
    for chunking in [[0..<program.wire.count], chunks] {
        let compression = parameters.flatMap { try? PerMessageDeflate(parameters: $0, role: .server) }
        fuzzRequire((compression == nil) == (parameters == nil), "negotiated parameters \(String(describing: parameters)) were refused")
        var run = ConnectionRun(WebSocketStateMachine(role: .server, limits: limits, compression: compression))
        run.feed(program.wire, chunks: chunking)
        run.checkInvariants()
        runs.append(run)
    }
    // Close codes, not log reasons: with compression one call can both hit corrupt data and inflate invalid UTF-8.
    let whole = runs[0].events.map(ObservedEvent.init), chunked = runs[1].events.map(ObservedEvent.init)
    fuzzRequire(whole == chunked, "chunking changed the events: \(whole) vs \(chunked)")
    fuzzRequire(runs[0].output == runs[1].output, "chunking changed the output")

    if program.modelIsExact {
        fuzzRequire(whole == program.expectedEvents, "events \(whole), model \(program.expectedEvents)")
        fuzzRequire(runs[0].output == program.expectedOutput, "output \(runs[0].output), model \(program.expectedOutput)")
    }
    return 0
}

/// Valid agreements only (what negotiation can produce): windows 9...15 or absent, either context flag.
private func deflateParameters(_ byte: UInt8) -> PerMessageDeflateParameters {
    let windows: [Int?] = [nil, 9, 10, 11, 12, 13, 14, 15]
    return PerMessageDeflateParameters(serverNoContextTakeover: byte & 1 != 0, clientNoContextTakeover: byte & 2 != 0,
                                       serverMaxWindowBits: windows[Int(byte >> 2) & 7], clientMaxWindowBits: windows[Int(byte >> 5) & 7])
}

/// The client's traffic and the model of the server's reaction to it.
private struct Program {
    let limits: WebSocketLimits
    /// The client's half of the agreement: it compresses what it sends with these parameters.
    let clientCompression: PerMessageDeflate?

    var wire: [UInt8] = []
    var expectedEvents: [ObservedEvent] = []
    var expectedOutput: [UInt8] = []
    /// False once the traffic contains bytes whose outcome the model does not predict.
    var modelIsExact = true
    /// True once the model predicts the connection has ended; later operations only add unpredicted bytes.
    private var ended = false

    init(limits: WebSocketLimits, parameters: PerMessageDeflateParameters?) {
        self.limits = limits
        var options = PerMessageDeflateOptions()
        options.minimumSizeToCompress = 1
        clientCompression = parameters.flatMap { try? PerMessageDeflate(parameters: $0, role: .client, options: options) }
    }

    mutating func generate(from reader: inout FuzzReader) {
        var operations = 0
        // At most 48 operations and about 200 KB of traffic, so that one input costs milliseconds, not seconds.
        while !reader.isAtEnd && operations < 48 && wire.count < 200_000 {
            operations += 1
            let operation = reader.byte()
            switch operation % 10 {
            case 0, 1: dataMessage(text: operation & 0x10 != 0, compressed: operation & 0x20 != 0, reader: &reader)
            case 2: control(opcode: 0x9, reader: &reader)
            case 3: control(opcode: 0xA, reader: &reader)
            case 4: close(reader: &reader)
            case 5: badClose(reader: &reader)
            case 6: invalidText(reader: &reader)
            case 7: violation(operation >> 4, reader: &reader)
            case 8:
                // Raw garbage: the model cannot say what it means.
                wire += reader.bytes(Int(reader.byte() % 16))
                modelIsExact = false
            default:
                // Flip one bit somewhere in what was sent so far.
                let position = reader.uint16()
                let bit = reader.byte() & 7
                if !wire.isEmpty {
                    wire[position % wire.count] ^= 1 << bit
                    modelIsExact = false
                }
            }
        }
    }

    // MARK: - Operations

    /// A text or binary message, possibly compressed, in 1-4 fragments with pings between them (§5.4 allows
    /// control frames in the middle of a fragmented message).
    private mutating func dataMessage(text: Bool, compressed: Bool, reader: inout FuzzReader) {
        var content = fill(reader: &reader)
        if text { content = Array(String(decoding: content, as: UTF8.self).utf8) }
        var payload = content
        var compress = false
        if compressed, let clientCompression, !content.isEmpty {
            var out: [UInt8] = []
            compress = content.withUnsafeBytes { clientCompression.compress($0, into: &out) }
            if compress { payload = out }
        }
        let cuts = splitPoints(count: payload.count, reader: &reader)
        let pingsBetween = reader.byte()
        var announced = 0
        for (index, range) in cuts.enumerated() {
            let fragment = Array(payload[range])
            let first = index == 0, last = index == cuts.count - 1
            announced += fragment.count
            sendFrame(fin: last, reservedBits: first && compress ? 0b100 : 0, opcode: first ? (text ? 0x1 : 0x2) : 0x0,
                      payload: fragment, reader: &reader)
            // RFC 6455 §10.4 / §7.4.1: a frame or message over the limits fails with 1009 at its header.
            if fragment.count > limits.maxFrameSize || announced > limits.maxMessageSize {
                return end(failing: 1009)
            }
            if compress && (content.count > limits.maxMessageSize) {
                // The decompressed size passes the limit somewhere in this message; the model does not say in
                // which fragment, so it sends no pings in between and expects 1009 once all fragments are in.
                continue
            }
            if !last && pingsBetween & (1 << (index & 7)) != 0 { control(opcode: 0x9, reader: &reader) }
        }
        if compress && content.count > limits.maxMessageSize { return end(failing: 1009) }
        if !ended { expect(text ? .text(content) : .binary(content)) }
    }

    /// A ping (answered by a pong with the same payload, §5.5.2) or a pong (reported only).
    private mutating func control(opcode: UInt8, reader: inout FuzzReader) {
        let payload = reader.bytes(Int(reader.byte() % 126))
        sendFrame(fin: true, reservedBits: 0, opcode: opcode, payload: payload, reader: &reader)
        guard !ended else { return }
        if opcode == 0x9 {
            expect(.ping(payload))
            writeServerFrame(opcode: 0xA, payload: payload)
        } else {
            expect(.pong(payload))
        }
    }

    /// A valid close: no body, or a code allowed on the wire plus a UTF-8 reason (§5.5.1, §7.4). The server echoes
    /// the code and the connection is closed.
    private mutating func close(reader: inout FuzzReader) {
        let codes: [UInt16] = [1000, 1001, 1002, 1003, 1007, 1008, 1009, 1010, 1011, 1012, 1013, 1014, 3000, 3999, 4000, 4999]
        let choice = reader.byte()
        var payload: [UInt8] = []
        var code: UInt16?
        var reason = ""
        if choice & 0x80 == 0 {
            let value = codes[Int(choice) % codes.count]
            code = value
            reason = String(decoding: reader.bytes(Int(reader.byte() % 124)), as: UTF8.self)
            // Repaired bytes can grow; keep the reason whole characters within 123 bytes (§5.5: 125 with the code).
            while reason.utf8.count > 123 { reason.removeLast() }
            payload = [UInt8(value >> 8), UInt8(value & 0xFF)] + Array(reason.utf8)
        }
        sendFrame(fin: true, reservedBits: 0, opcode: 0x8, payload: payload, reader: &reader)
        guard !ended else { return }
        expect(.closed(code: code, reason: reason))
        writeServerFrame(opcode: 0x8, payload: code.map { [UInt8($0 >> 8), UInt8($0 & 0xFF)] } ?? [])
        ended = true
    }

    /// A close the server must refuse: a 1-byte body or a code not allowed on the wire (1002), or a reason that is
    /// not UTF-8 (1007).
    private mutating func badClose(reader: inout FuzzReader) {
        let invalidCodes: [UInt16] = [0, 999, 1004, 1005, 1006, 1015, 1016, 2000, 2999, 5000, 65535]
        let choice = reader.byte()
        let payload: [UInt8]
        let expected: UInt16
        switch choice % 3 {
        case 0:
            payload = [reader.byte()]
            expected = 1002
        case 1:
            let code = invalidCodes[Int(choice >> 2) % invalidCodes.count]
            payload = [UInt8(code >> 8), UInt8(code & 0xFF)]
            expected = 1002
        default:
            payload = [0x03, 0xE8, 0xC3, 0x28]  // 1000, then a lead byte followed by a non-continuation byte
            expected = 1007
        }
        sendFrame(fin: true, reservedBits: 0, opcode: 0x8, payload: payload, reader: &reader)
        end(failing: expected)
    }

    /// A text message with an invalid UTF-8 sequence: 1007 (§8.1), even when split across fragments.
    private mutating func invalidText(reader: inout FuzzReader) {
        let bad: [[UInt8]] = [[0xFF], [0xC0, 0x80], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80], [0xE2, 0x28, 0xA1]]
        var content = Array(String(decoding: reader.bytes(Int(reader.byte() % 32)), as: UTF8.self).utf8)
        let at = content.isEmpty ? 0 : Int(reader.byte()) % (content.count + 1)
        content.insert(contentsOf: bad[Int(reader.byte()) % bad.count], at: at)
        guard content.count <= min(limits.maxFrameSize, limits.maxMessageSize) else { return }
        let cuts = splitPoints(count: content.count, reader: &reader)
        for (index, range) in cuts.enumerated() {
            sendFrame(fin: index == cuts.count - 1, reservedBits: 0, opcode: index == 0 ? 0x1 : 0x0, payload: Array(content[range]), reader: &reader)
        }
        end(failing: 1007)
    }

    /// A frame every conforming server must refuse with 1002 at its header.
    private mutating func violation(_ kind: UInt8, reader: inout FuzzReader) {
        let payload = reader.bytes(Int(reader.byte() % 8))
        switch kind % 8 {
        case 0: sendFrame(fin: true, reservedBits: 0, opcode: 0x3 + reader.byte() % 5, payload: payload, reader: &reader)  // reserved 3-7
        case 1: sendFrame(fin: true, reservedBits: 0, opcode: 0xB + reader.byte() % 5, payload: payload, reader: &reader)  // reserved B-F
        case 2: sendFrame(fin: true, reservedBits: 0b010 | (reader.byte() & 1), opcode: 0x2, payload: payload, reader: &reader)  // RSV2/3
        case 3: encodeClientFrame(opcode: 0x2, payload: payload, maskKey: nil, into: &wire)  // unmasked (§5.1)
        case 4: sendFrame(fin: false, reservedBits: 0, opcode: 0x9, payload: payload, reader: &reader)  // fragmented ping (§5.5)
        case 5: sendFrame(fin: true, reservedBits: 0, opcode: 0x9, payload: Array(repeating: 0x61, count: 126), reader: &reader)  // 126-byte ping
        case 6: sendFrame(fin: true, reservedBits: 0, opcode: 0x0, payload: payload, reader: &reader)  // continuation without a message
        default:
            // RSV1 without permessage-deflate, or RSV1 on a control frame with it (RFC 7692 §6.1).
            sendFrame(fin: true, reservedBits: 0b100, opcode: clientCompression == nil ? 0x1 : 0x9, payload: payload, reader: &reader)
        }
        end(failing: 1002)
    }

    // MARK: - Helpers

    /// Message content: the input's bytes, or for long messages a repeated pattern (compressible, so that deflate
    /// and the size limits are exercised without a huge fuzz input).
    private func fill(reader: inout FuzzReader) -> [UInt8] {
        let lengthChoice = reader.byte()
        // Long messages are 1 in 16: they find the limit and 16/64-bit length paths, but cost 100x a short one.
        if lengthChoice < 0xF0 { return reader.bytes(Int(lengthChoice)) }
        let length = [126, 300, 1000, 1001, 4097, 16385, 65535, 65536][Int(lengthChoice) & 7] + Int(reader.byte() % 4)
        let pattern = reader.bytes(1 + Int(reader.byte() % 8))
        guard !pattern.isEmpty else { return Array(repeating: 0x61, count: length) }
        return (0..<length).map { pattern[$0 % pattern.count] }
    }

    /// Splits `count` bytes into 1-4 fragments at reader-chosen points (fragments may be empty).
    private func splitPoints(count: Int, reader: inout FuzzReader) -> [Range<Int>] {
        let fragments = 1 + Int(reader.byte() % 4)
        var points = (1..<fragments).map { _ in count == 0 ? 0 : reader.uint16() % (count + 1) }
        points.sort()
        var ranges: [Range<Int>] = []
        var start = 0
        for point in points + [count] {
            ranges.append(start..<point)
            start = point
        }
        return ranges
    }

    /// Appends a masked client frame with a reader-chosen key and length encoding. Data frames may use a longer
    /// length encoding than needed (receivers accept it); control frames use the 7-bit form, because a 7-bit length
    /// of 126/127 on a control frame already claims more than 125 bytes (§5.5).
    private mutating func sendFrame(fin: Bool, reservedBits: UInt8, opcode: UInt8, payload: [UInt8], reader: inout FuzzReader) {
        let form = reader.byte()
        let key = [form, form &* 31 &+ 7, form ^ 0x5A, form &+ 101]
        encodeClientFrame(fin: fin, reservedBits: reservedBits, opcode: opcode, payload: payload, maskKey: key,
                          lengthForm: opcode & 0x8 != 0 ? 0 : Int(form >> 6) % 3, into: &wire)
    }

    private mutating func expect(_ event: ObservedEvent) {
        guard !ended else { return }
        expectedEvents.append(event)
    }

    /// The connection fails here with `code`: the failure event, and the close frame carrying the code (§7.1.7).
    private mutating func end(failing code: UInt16) {
        guard !ended else { return }
        expectedEvents.append(.failed(code: code))
        writeServerFrame(opcode: 0x8, payload: [UInt8(code >> 8), UInt8(code & 0xFF)])
        ended = true
    }

    private mutating func writeServerFrame(opcode: UInt8, payload: [UInt8]) {
        encodeClientFrame(opcode: opcode, payload: payload, maskKey: nil, into: &expectedOutput)
    }
}
