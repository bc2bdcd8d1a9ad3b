import FuzzSupport
import HeraldDeflate
import HeraldWebSocket

/// The permessage-deflate inflate path (RFC 7692 §7.2.2) with a small message limit, as a server-role
/// ``PerMessageDeflate`` is driven by ``WebSocketStateMachine``: `decompress` per payload chunk, then `finishMessage`.
///
/// Input layout: byte 0 picks the limit, byte 1 the agreement, bytes 2-9 seed the chunking, then up to four
/// messages, each a 16-bit length followed by its compressed bytes.
/// Properties:
/// - never traps, whatever the bytes;
/// - a message never holds more than `limit + 1` bytes (a compression bomb costs about the limit, not memory) and a
///   message over the limit fails with 1009; corrupt data fails with 1007; nothing else is reported;
/// - chunking does not change the output or the outcome;
/// - what our own client-role compressor makes of the same bytes inflates back to them (1009 if over the limit).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzInflate(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    var reader = FuzzReader(fuzzInput(data, size))
    let limit = [0, 1, 64, 1000, 4096, 65536][Int(reader.byte()) % 6]
    let parameters = deflateParameters(reader.byte())
    let seed = reader.uint64()
    var messages: [[UInt8]] = []
    while !reader.isAtEnd && messages.count < 4 { messages.append(reader.bytes(reader.uint16())) }

    let whole = inflateMessages(messages, parameters: parameters, limit: limit, seed: nil)
    let chunked = inflateMessages(messages, parameters: parameters, limit: limit, seed: seed)
    fuzzRequire(whole == chunked, "chunking changed the inflate outcome: \(whole) vs \(chunked)")

    roundTrip(messages, parameters: parameters, limit: limit)
    return 0
}

/// What became of one message: its bytes, or the close code it failed with.
private enum Outcome: Equatable, CustomStringConvertible {
    case message([UInt8])
    case failed(UInt16)

    var description: String {
        switch self {
        case .message(let bytes): "message(\(bytes.count) bytes)"
        case .failed(let code): "failed(\(code))"
        }
    }
}

private func deflateParameters(_ byte: UInt8) -> PerMessageDeflateParameters {
    let windows: [Int?] = [nil, 9, 10, 11, 12, 13, 14, 15]
    return PerMessageDeflateParameters(serverNoContextTakeover: byte & 1 != 0, clientNoContextTakeover: byte & 2 != 0,
                                       serverMaxWindowBits: windows[Int(byte >> 2) & 7], clientMaxWindowBits: windows[Int(byte >> 5) & 7])
}

/// Inflates each message as the server would (whole, or in seeded chunks); stops at the first failure, after which
/// the connection would be failed.
private func inflateMessages(_ messages: [[UInt8]], parameters: PerMessageDeflateParameters, limit: Int, seed: UInt64?) -> [Outcome] {
    guard let codec = try? PerMessageDeflate(parameters: parameters, role: .server) else {
        fuzzRequire(false, "valid agreement \(parameters) refused")
        return []
    }
    var outcomes: [Outcome] = []
    for compressed in messages {
        var message: [UInt8] = []
        var failure: WebSocketProtocolError?
        let chunks = seed.map { chunkRanges(count: compressed.count, seed: $0 &+ UInt64(outcomes.count), maxChunk: 37) } ?? [0..<compressed.count]
        for range in chunks where failure == nil {
            failure = compressed[range].withUnsafeBytes { codec.decompress($0, appendingTo: &message, limit: limit) }
            check(message, failure, limit: limit)
        }
        if failure == nil {
            failure = codec.finishMessage(appendingTo: &message, limit: limit)
            check(message, failure, limit: limit)
        }
        if let failure {
            outcomes.append(.failed(failure.closeCode.rawValue))
            return outcomes
        }
        outcomes.append(.message(message))
    }
    return outcomes
}

/// The bomb guard and the error contract, after every call.
private func check(_ message: [UInt8], _ failure: WebSocketProtocolError?, limit: Int) {
    fuzzRequire(message.count <= limit + 1, "inflated \(message.count) bytes with a limit of \(limit)")
    guard let failure else {
        return fuzzRequire(message.count <= limit, "\(message.count) bytes accepted with a limit of \(limit)")
    }
    let code = failure.closeCode.rawValue
    fuzzRequire(code == 1009 || code == 1007, "inflate failed with close code \(code): \(failure)")
    if code == 1009 { fuzzRequire(message.count == limit + 1, "1009 with \(message.count) bytes for a limit of \(limit)") }
}

/// Compresses the input messages with a client-role codec and inflates them with a server-role one.
private func roundTrip(_ messages: [[UInt8]], parameters: PerMessageDeflateParameters, limit: Int) {
    var options = PerMessageDeflateOptions()
    options.minimumSizeToCompress = 1
    guard let client = try? PerMessageDeflate(parameters: parameters, role: .client, options: options),
          let server = try? PerMessageDeflate(parameters: parameters, role: .server) else {
        return fuzzRequire(false, "valid agreement \(parameters) refused")
    }
    for original in messages where !original.isEmpty {
        var compressed: [UInt8] = []
        let didCompress = original.withUnsafeBytes { client.compress($0, into: &compressed) }
        fuzzRequire(didCompress, "compressor declined a \(original.count)-byte message")
        var message: [UInt8] = []
        var failure = compressed.withUnsafeBytes { server.decompress($0, appendingTo: &message, limit: limit) }
        if failure == nil { failure = server.finishMessage(appendingTo: &message, limit: limit) }
        if original.count > limit {
            fuzzRequire(failure?.closeCode == .messageTooBig, "\(original.count) bytes over a \(limit) limit gave \(String(describing: failure))")
            return  // the connection would be failed here
        }
        fuzzRequire(failure == nil, "our own compressed message fails to inflate: \(String(describing: failure))")
        fuzzRequire(message == original, "round trip changed a \(original.count)-byte message")
    }
}
