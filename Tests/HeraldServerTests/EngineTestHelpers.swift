import HeraldTestSupport
import Testing

/// Runs `body` against a freshly started real `herald-server --bench-endpoints` (plus `arguments`), then checks the server
/// survived whatever `body` did to it (still running, and a second connection still echoes) and stops it.
func withEchoServer(_ arguments: [String] = [], _ body: (ServerHarness) throws -> Void) throws {
    let server = try ServerHarness.start(["--bench-endpoints"] + arguments)
    defer { server.stop() }
    try body(server)
    try expectStillServing(server)
}

/// The server process is alive and a new connection to /echo still round-trips a message.
func expectStillServing(_ server: ServerHarness, sourceLocation: SourceLocation = #_sourceLocation) throws {
    #expect(server.isRunning, "server died: \(server.standardError)", sourceLocation: sourceLocation)
    let probe = try RawWebSocketClient.connect(port: server.port, path: "/echo")
    try probe.sendText("still there?")
    #expect(try probe.readMessage().text == "still there?", sourceLocation: sourceLocation)
}

/// Deterministic bytes of a given length (a repeating non-trivial pattern, so an offset error shows).
func patternBytes(_ count: Int, seed: Int = 7) -> [UInt8] {
    (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ seed &+ ($0 >> 8)) }
}

/// Valid UTF-8 text of exactly `count` bytes mixing 1-, 2- and 3-byte characters.
func utf8Text(byteCount count: Int) -> [UInt8] {
    let pieces: [[UInt8]] = [Array("a".utf8), Array("é".utf8), Array("€".utf8), Array("z".utf8)]
    var bytes: [UInt8] = []
    bytes.reserveCapacity(count)
    var index = 0
    while bytes.count < count {
        let piece = pieces[index % pieces.count]
        bytes += bytes.count + piece.count <= count ? piece : [UInt8(ascii: "x")]
        index += 1
    }
    return bytes
}

/// WebSocket opcodes as the raw client sends them (RFC 6455 §5.2).
enum Op {
    static let continuation: UInt8 = 0x0
    static let text: UInt8 = 0x1
    static let binary: UInt8 = 0x2
    static let close: UInt8 = 0x8
    static let ping: UInt8 = 0x9
    static let pong: UInt8 = 0xA
}
