import HeraldTestSupport
import Testing

/// Autobahn|Testsuite section 5 (fragmentation, RFC 6455 §5.4) against the real server's /echo endpoint.
@Suite("Engine: Autobahn 5 (fragmentation)")
struct EngineAutobahnFragmentationTests {
    @Test("Autobahn 5.1/5.2: a fragmented ping or pong (FIN clear) fails with 1002 (§5.5: control frames MUST NOT be fragmented)",
          arguments: [Op.ping, Op.pong])
    func case5_1_fragmentedControlFrame(opcode: UInt8) throws {
        try withEchoServer { server in
            let client = try RawWebSocketClient.connect(port: server.port)
            try client.sendFrame(opcode: opcode, payload: Array("fragment1".utf8), fin: false)
            try client.sendFrame(opcode: Op.continuation, payload: Array("fragment2".utf8))
            #expect(try client.readCloseCode() == 1002)
            try client.waitForEOF()
        }
    }

    @Test("Autobahn 5.3-5.5: a text message in two fragments (whole write, separate writes, byte by byte) is echoed as one message",
          arguments: [0, 1, 2])
    func case5_3_twoFragments(writeMode: Int) throws {
        try withEchoServer { server in
            let client = try RawWebSocketClient.connect(port: server.port)
            let bytes = RawWebSocketClient.frame(opcode: Op.text, payload: Array("fragment1".utf8), fin: false)
                + RawWebSocketClient.frame(opcode: Op.continuation, payload: Array("fragment2".utf8))
            switch writeMode {
            case 0: try client.send(bytes)
            case 1:
                try client.sendFrame(opcode: Op.text, payload: Array("fragment1".utf8), fin: false)
                try client.sendFrame(opcode: Op.continuation, payload: Array("fragment2".utf8))
            default: for byte in bytes { try client.send([byte]) }
            }
            let echo = try client.readMessage()
            #expect(echo.opcode == Op.text && echo.text == "fragment1fragment2")
        }
    }

    @Test("Autobahn 5.6-5.8: a ping between two text fragments is answered first; the message is then echoed whole (§5.4)")
    func case5_6_pingBetweenFragments() throws {
        try withEchoServer { server in
            let client = try RawWebSocketClient.connect(port: server.port)
            try client.sendFrame(opcode: Op.text, payload: Array("fragment1".utf8), fin: false)
            try client.sendFrame(opcode: Op.ping, payload: Array("pongme!".utf8))
            try client.sendFrame(opcode: Op.continuation, payload: Array("fragment2".utf8))
            let pong = try client.readFrame()
            #expect(pong.opcode == Op.pong && pong.text == "pongme!")
            let echo = try client.readMessage()
            #expect(echo.text == "fragment1fragment2")
        }
    }

    @Test("Autobahn 5.9-5.12: continuation without start fails with 1002 (FIN set, FIN clear; whole or chunked)",
          arguments: [true, false])
    func case5_9_continuationWithoutStart(fin: Bool) throws {
        try withEchoServer { server in
            let client = try RawWebSocketClient.connect(port: server.port)
            try client.sendFrame(opcode: Op.continuation, payload: Array("non-continuation payload".utf8), fin: fin)
            try client.sendText("Hello, world!")
            #expect(try client.readCloseCode() == 1002)
            try client.waitForEOF()
        }
    }

    @Test("Autobahn 5.13-5.17: after a complete message, a further continuation frame fails with 1002")
    func case5_13_continuationAfterCompleteMessage() throws {
        try withEchoServer { server in
            let client = try RawWebSocketClient.connect(port: server.port)
            try client.sendFrame(opcode: Op.text, payload: Array("fragment1".utf8), fin: false)
            try client.sendFrame(opcode: Op.continuation, payload: Array("fragment2".utf8), fin: true)
            try client.sendFrame(opcode: Op.continuation, payload: Array("fragment3".utf8), fin: true)
            #expect(try client.readMessage().text == "fragment1fragment2")
            #expect(try client.readCloseCode() == 1002)
        }
    }

    @Test("Autobahn 5.18: a new data frame inside a fragmented message fails with 1002 (§5.4: no interleaving)",
          arguments: [Op.text, Op.binary])
    func case5_18_dataFrameInsideFragmentedMessage(second: UInt8) throws {
        try withEchoServer { server in
            let client = try RawWebSocketClient.connect(port: server.port)
            try client.sendFrame(opcode: Op.text, payload: Array("fragment1".utf8), fin: false)
            try client.sendFrame(opcode: second, payload: Array("fragment2".utf8), fin: true)
            #expect(try client.readCloseCode() == 1002)
            try client.waitForEOF()
        }
    }

    @Test("Autobahn 5.19/5.20: five fragments with pings between (sent with pauses) give pongs in order, then the message")
    func case5_19_fragmentsWithPings() throws {
        try withEchoServer { server in
            let client = try RawWebSocketClient.connect(port: server.port)
            for index in 1...5 {
                try client.sendFrame(opcode: index == 1 ? Op.text : Op.continuation, payload: Array("fragment\(index)".utf8), fin: index == 5)
                if index < 5 {
                    try client.sendFrame(opcode: Op.ping, payload: Array("pongme \(index)!".utf8))
                    let pong = try client.readFrame()
                    #expect(pong.opcode == Op.pong && pong.text == "pongme \(index)!")
                }
            }
            #expect(try client.readMessage().text == "fragment1fragment2fragment3fragment4fragment5")
        }
    }

    @Test("Autobahn 9.3/10.1.1: a 1 MiB binary message in 4 KiB fragments and a 64 KiB text message in 1300-byte fragments are echoed whole")
    func case9_3_manyFragments() throws {
        try withEchoServer { server in
            let client = try RawWebSocketClient.connect(port: server.port)
            let binary = patternBytes(1 << 20)
            var bytes: [UInt8] = []
            for start in stride(from: 0, to: binary.count, by: 4096) {
                let end = min(start + 4096, binary.count)
                bytes += RawWebSocketClient.frame(opcode: start == 0 ? Op.binary : Op.continuation, payload: Array(binary[start..<end]), fin: end == binary.count)
            }
            try client.send(bytes)
            let echo = try client.readMessage()
            #expect(echo.opcode == Op.binary && echo.payload == binary)

            let text = utf8Text(byteCount: 65536)
            for start in stride(from: 0, to: text.count, by: 1300) {
                let end = min(start + 1300, text.count)
                try client.sendFrame(opcode: start == 0 ? Op.text : Op.continuation, payload: Array(text[start..<end]), fin: end == text.count)
            }
            #expect(try client.readMessage().payload == text)
        }
    }
}
