import Foundation
import HeraldTestSupport
import Testing

/// Autobahn|Testsuite sections 9 (limits and performance) and 10 (misc), scaled to the server's 1 MiB message limit.
@Suite("Engine: Autobahn 9-10 (limits, many messages)")
struct EngineAutobahnLimitsTests {
    @Test("Autobahn 9.1.x/9.2.x: 64 KiB, 256 KiB and 1 MiB text and binary messages are echoed exactly",
          arguments: [64 << 10, 256 << 10, 1 << 20])
    func case9_1_largeMessages(size: Int) throws {
        try withEchoServer { server in
            let client = try RawWebSocketClient.connect(port: server.port)
            let text = utf8Text(byteCount: size)
            try client.sendFrame(opcode: Op.text, payload: text)
            #expect(try client.readMessage().payload == text)
            let binary = patternBytes(size)
            try client.sendFrame(opcode: Op.binary, payload: binary)
            #expect(try client.readMessage().payload == binary)
        }
    }

    @Test("Autobahn 9.5/9.6: a 1 MiB message written in 64-byte TCP chunks is echoed exactly")
    func case9_5_smallTCPChunks() throws {
        try withEchoServer { server in
            let client = try RawWebSocketClient.connect(port: server.port)
            let payload = patternBytes(1 << 20)
            let frame = RawWebSocketClient.frame(opcode: Op.binary, payload: payload)
            for start in stride(from: 0, to: frame.count, by: 64) { try client.send(Array(frame[start..<min(start + 64, frame.count)])) }
            #expect(try client.readMessage().payload == payload)
        }
    }

    @Test("RFC 6455 §10.4: a frame over --max-frame-bytes fails with 1009 at its header; a message over --max-message-bytes too")
    func messageTooBig() throws {
        try withEchoServer { server in
            // The server stops reading at the failing header, so the rest of a 1 MiB write fits only if the kernel's
            // buffers happen to hold it: it is written from another thread (whose send may then fail, as the server
            // closes), while this one reads the close.
            let client = try RawWebSocketClient.connect(port: server.port)
            Self.sendInBackground(client) { try $0.sendFrame(opcode: Op.binary, payload: patternBytes((1 << 20) + 1)) }
            #expect(try client.readCloseCode() == 1009)

            let fragmented = try RawWebSocketClient.connect(port: server.port)
            Self.sendInBackground(fragmented) { client in
                let half = patternBytes(1 << 19)
                try client.sendFrame(opcode: Op.binary, payload: half, fin: false)
                try client.sendFrame(opcode: Op.continuation, payload: half, fin: false)
                try client.sendFrame(opcode: Op.continuation, payload: [1], fin: true)
            }
            #expect(try fragmented.readCloseCode() == 1009)
        }
    }

    /// Runs `send` on its own thread; a send the server cuts short (EPIPE, ECONNRESET) is expected there.
    private static func sendInBackground(_ client: RawWebSocketClient, _ send: @escaping (RawWebSocketClient) throws -> Void) {
        nonisolated(unsafe) let client = client
        nonisolated(unsafe) let send = send
        Thread.detachNewThread { try? send(client) }
    }

    @Test("Autobahn 9.7/9.8: 10,000 small messages round-trip on one connection, in order")
    func case9_7_tenThousandMessages() throws {
        try withEchoServer { server in
            let client = try RawWebSocketClient.connect(port: server.port)
            let batch = 500
            for start in stride(from: 0, to: 10_000, by: batch) {
                var bytes: [UInt8] = []
                for index in start..<(start + batch) {
                    bytes += RawWebSocketClient.frame(opcode: index % 2 == 0 ? Op.text : Op.binary, payload: Array("message \(index)".utf8))
                }
                try client.send(bytes)
                for index in start..<(start + batch) {
                    let echo = try client.readMessage()
                    #expect(echo.text == "message \(index)" && echo.opcode == (index % 2 == 0 ? Op.text : Op.binary))
                }
            }
        }
    }
}
