import Foundation
import HeraldDeflate
import HeraldWebSocket

/// Compressible ASCII text of exactly `count` bytes: JSON-ish records like the ones Herald sends.
func compressibleText(_ count: Int) -> String {
    var bytes: [UInt8] = []
    bytes.reserveCapacity(count + 64)
    var sequence = 0
    while bytes.count < count {
        bytes += Array("{\"type\":\"event\",\"seq\":\(sequence),\"text\":\"hello world\"}\n".utf8)
        sequence += 1
    }
    return String(decoding: bytes[0..<count], as: UTF8.self)
}

/// A client and a server connection that negotiated permessage-deflate through the real handshake functions.
struct DeflatePair {
    var client: WebSocketStateMachine
    var server: WebSocketStateMachine
    let clientDeflate: PerMessageDeflate
    let serverDeflate: PerMessageDeflate
    let agreed: PerMessageDeflateParameters

    init(client clientConfiguration: PerMessageDeflateClientConfiguration = .init(),
         server serverConfiguration: PerMessageDeflateServerConfiguration = .init(),
         options: PerMessageDeflateOptions = .init(),
         limits: WebSocketLimits = WebSocketLimits(maxFrameSize: 4 << 20, maxMessageSize: 4 << 20)) throws {
        guard let serverAgreed = serverConfiguration.negotiate([clientConfiguration.offerHeader]) else {
            throw PerMessageDeflateError.responseNotAllowed("server declined \(clientConfiguration.offerHeader)")
        }
        guard let clientAgreed = try clientConfiguration.acceptResponse([serverAgreed.responseHeader]) else {
            throw PerMessageDeflateError.responseNotAllowed("client saw no extension")
        }
        agreed = serverAgreed
        serverDeflate = try PerMessageDeflate(parameters: serverAgreed, role: .server, options: options)
        clientDeflate = try PerMessageDeflate(parameters: clientAgreed, role: .client, options: options)
        server = WebSocketStateMachine(role: .server, limits: limits, compression: serverDeflate)
        client = WebSocketStateMachine(role: .client, limits: limits, compression: clientDeflate)
    }
}

extension WebSocketStateMachine {
    /// Feeds `bytes` and collects every event and the bytes we must write back.
    mutating func feed(_ bytes: [UInt8]) -> (events: [WebSocketEvent], output: [UInt8]) {
        var output: [UInt8] = []
        var events: [WebSocketEvent] = []
        receive(bytes, output: &output) { events.append($0) }
        return (events, output)
    }
}

/// A masked client frame with chosen RSV bits.
func clientFrame(_ opcode: WebSocketOpcode, _ payload: [UInt8], fin: Bool = true, rsv1: Bool) -> [UInt8] {
    var frame: [UInt8] = []
    FrameEncoder.encodeClientFrame(opcode: opcode, payload: payload, maskKey: (0x37, 0xFA, 0x21, 0x3D), fin: fin, into: &frame)
    if rsv1 { frame[0] |= 0x40 }
    return frame
}

/// The payload of a single unmasked server frame (header parsed by hand: 2, 4 or 10 header bytes).
func serverFramePayload(_ frame: [UInt8]) -> [UInt8] {
    let length7 = Int(frame[1] & 0x7F)
    let headerSize = length7 == 127 ? 10 : (length7 == 126 ? 4 : 2)
    return Array(frame[headerSize...])
}

/// Runs `python3 -c script` with `input` on stdin and returns stdout.
func runPython(_ script: String, input: [UInt8]) throws -> [UInt8] {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["python3", "-c", script]
    let stdin = Pipe()
    let stdout = Pipe()
    process.standardInput = stdin
    process.standardOutput = stdout
    try process.run()
    // Write on another thread: a large input could fill the pipe while python fills its stdout.
    let writer = Thread {
        stdin.fileHandleForWriting.write(Data(input))
        try? stdin.fileHandleForWriting.close()
    }
    writer.start()
    let output = stdout.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return Array(output)
}

extension WebSocketEvent {
    /// A text message event written as a string in expectations; the machine delivers the UTF-8 bytes.
    static func text(_ string: String) -> WebSocketEvent { .text(Array(string.utf8)) }
}
