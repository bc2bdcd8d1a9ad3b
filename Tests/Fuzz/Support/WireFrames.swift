import HeraldWebSocket

/// One frame as decoded by the harness's own reference decoder (independent of ``FrameParser``).
public struct WireFrame: Equatable {
    public var fin: Bool
    public var reservedBits: UInt8
    public var opcode: UInt8
    public var masked: Bool
    public var payload: [UInt8]
}

/// Decodes a byte stream into whole frames (RFC 6455 §5.2), unmasking payloads; `nil` if the bytes are not a
/// sequence of complete, well-formed frame encodings.
public func decodeWireFrames(_ bytes: [UInt8]) -> [WireFrame]? {
    var frames: [WireFrame] = []
    var index = 0
    while index < bytes.count {
        guard bytes.count - index >= 2 else { return nil }
        let first = bytes[index], second = bytes[index + 1]
        index += 2
        var length = Int(second & 0x7F)
        if length >= 126 {
            let size = length == 126 ? 2 : 8
            guard bytes.count - index >= size else { return nil }
            var value: UInt64 = 0
            for byte in bytes[index..<(index + size)] { value = value << 8 | UInt64(byte) }
            index += size
            guard value <= UInt64(bytes.count) else { return nil }
            length = Int(value)
        }
        let masked = second & 0x80 != 0
        var key: [UInt8] = []
        if masked {
            guard bytes.count - index >= 4 else { return nil }
            key = Array(bytes[index..<(index + 4)])
            index += 4
        }
        guard bytes.count - index >= length else { return nil }
        var payload = Array(bytes[index..<(index + length)])
        index += length
        if masked { for i in payload.indices { payload[i] ^= key[i & 3] } }
        frames.append(WireFrame(fin: first & 0x80 != 0, reservedBits: (first >> 4) & 7, opcode: first & 0x0F, masked: masked, payload: payload))
    }
    return frames
}

/// Encodes a client frame the way a (possibly misbehaving) peer would, with full control of every header field.
///
/// - Parameters:
///   - lengthForm: 0 minimal length encoding, 1 always 16-bit when it fits, 2 always 64-bit (both legal, §5.2
///     only asks senders for the minimal form).
public func encodeClientFrame(fin: Bool = true, reservedBits: UInt8 = 0, opcode: UInt8, payload: [UInt8], maskKey: [UInt8]?,
                              lengthForm: Int = 0, into output: inout [UInt8]) {
    output.append((fin ? 0x80 : 0) | (reservedBits & 7) << 4 | opcode & 0x0F)
    let maskBit: UInt8 = maskKey == nil ? 0 : 0x80
    let length = payload.count
    if length <= 125 && lengthForm == 0 {
        output.append(maskBit | UInt8(length))
    } else if length <= 0xFFFF && lengthForm <= 1 {
        output.append(maskBit | 126)
        output.append(UInt8(length >> 8))
        output.append(UInt8(length & 0xFF))
    } else {
        output.append(maskBit | 127)
        for shift in stride(from: 56, through: 0, by: -8) { output.append(UInt8(truncatingIfNeeded: UInt64(length) >> UInt64(shift))) }
    }
    guard let maskKey, maskKey.count == 4 else {
        output.append(contentsOf: payload)
        return
    }
    output.append(contentsOf: maskKey)
    for (i, byte) in payload.enumerated() { output.append(byte ^ maskKey[i & 3]) }
}

/// A connection event with a failure reduced to its close code: the model predicts codes, not log text.
public enum ObservedEvent: Equatable, CustomStringConvertible {
    case text([UInt8])
    case binary([UInt8])
    case ping([UInt8])
    case pong([UInt8])
    case closed(code: UInt16?, reason: String)
    case failed(code: UInt16)

    public init(_ event: WebSocketEvent) {
        switch event {
        case .text(let bytes): self = .text(bytes)
        case .binary(let bytes): self = .binary(bytes)
        case .ping(let bytes): self = .ping(bytes)
        case .pong(let bytes): self = .pong(bytes)
        case .closed(let code, let reason): self = .closed(code: code?.rawValue, reason: reason)
        case .failed(let error): self = .failed(code: error.closeCode.rawValue)
        }
    }

    public var isTerminal: Bool {
        switch self {
        case .closed, .failed: true
        default: false
        }
    }

    public var description: String {
        switch self {
        case .text(let bytes): "text(\(bytes.count) bytes)"
        case .binary(let bytes): "binary(\(bytes.count) bytes)"
        case .ping(let bytes): "ping(\(bytes))"
        case .pong(let bytes): "pong(\(bytes))"
        case .closed(let code, let reason): "closed(\(code.map(String.init) ?? "none"), \(reason.debugDescription))"
        case .failed(let code): "failed(\(code))"
        }
    }
}
