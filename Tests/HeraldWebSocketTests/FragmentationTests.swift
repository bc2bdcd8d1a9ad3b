import HeraldTestSupport
import HeraldWebSocket
import Testing

/// RFC 6455 §5.4 fragmentation and message reassembly.
@Suite("Fragmentation (RFC 6455 §5.4)")
struct FragmentationTests {
    @Test("RFC 6455 §5.4: text in two fragments is one message (Autobahn 5.3)")
    func case5_3_textTwoFragments() {
        expectConnection(clientFrame(.text, "frag", fin: false) + clientFrame(.continuation, "ment"), events: [.text("fragment")])
    }

    @Test("RFC 6455 §5.4: binary in three fragments, including an empty one, is one message (Autobahn 5.4-5.5)")
    func case5_4_binaryFragments() {
        let input = clientFrame(.binary, [1, 2], fin: false) + clientFrame(.continuation, [], fin: false) + clientFrame(.continuation, [3])
        expectConnection(input, events: [.binary([1, 2, 3])])
    }

    @Test("RFC 6455 §5.4: all-empty fragments make an empty text message")
    func emptyFragments() {
        // 01 80 key / 00 80 key / 80 80 key: text, continuation, final continuation, all empty.
        expectConnection(hex("01 80 37 FA 21 3D 00 80 37 FA 21 3D 80 80 37 FA 21 3D"), events: [.text("")])
    }

    @Test("RFC 6455 §5.4: a ping between fragments is delivered and answered at once (Autobahn 5.6-5.8)")
    func case5_6_pingBetweenFragments() {
        let input = clientFrame(.text, "frag", fin: false) + clientFrame(.ping, "ping") + clientFrame(.continuation, "ment")
        // 8A 04 "ping": the pong is written before the message completes.
        expectConnection(input, events: [.ping(Array("ping".utf8)), .text("fragment")], writes: hex("8A 04 70 69 6E 67"))
    }

    @Test("RFC 6455 §5.4: a pong between fragments is delivered at once")
    func pongBetweenFragments() {
        let input = clientFrame(.binary, [9], fin: false) + clientFrame(.pong, [7]) + clientFrame(.continuation, [8])
        expectConnection(input, events: [.pong([7]), .binary([9, 8])])
    }

    @Test("RFC 6455 §5.4: continuation without a started message fails with 1002 (Autobahn 5.9)")
    func case5_9_continuationWithoutStart() {
        // 80 = FIN+continuation, nothing to continue.
        expectConnection(clientFrame(.continuation, "x"), events: [failure(.protocolError)], writes: ServerClose.protocolError, state: .closed)
    }

    @Test("RFC 6455 §5.4: non-final continuation without start fails with 1002 (Autobahn 5.10-5.11)")
    func case5_10_continuationWithoutStartNotFinal() {
        let input = clientFrame(.continuation, "frag", fin: false) + clientFrame(.text, "x")
        expectConnection(input, events: [failure(.protocolError)], writes: ServerClose.protocolError, state: .closed)
    }

    @Test("RFC 6455 §5.4: a continuation after a complete message fails with 1002 (Autobahn 5.15)")
    func case5_15_continuationAfterComplete() {
        let input = clientFrame(.text, "done") + clientFrame(.continuation, "more")
        expectConnection(input, events: [.text("done"), failure(.protocolError)], writes: ServerClose.protocolError, state: .closed)
    }

    @Test("RFC 6455 §5.4: a new text frame inside a fragmented message fails with 1002 (Autobahn 5.18)")
    func case5_18_newTextInsideFragmented() {
        let input = clientFrame(.text, "frag", fin: false) + clientFrame(.text, "ment")
        expectConnection(input, events: [failure(.protocolError)], writes: ServerClose.protocolError, state: .closed)
    }

    @Test("RFC 6455 §5.4: a new binary frame inside a fragmented text message fails with 1002")
    func newBinaryInsideFragmented() {
        let input = clientFrame(.text, "frag", fin: false) + clientFrame(.binary, [1])
        expectConnection(input, events: [failure(.protocolError)], writes: ServerClose.protocolError, state: .closed)
    }

    @Test("RFC 6455 §5.4: pings and messages interleave across many fragments (Autobahn 5.19-5.20)")
    func case5_19_manyFragmentsWithPings() {
        var input: [UInt8] = []
        var expectedEvents: [WebSocketEvent] = []
        var expectedOutput: [UInt8] = []
        for index in 0..<5 {
            input += clientFrame(index == 0 ? .text : .continuation, "f\(index)", fin: false)
            input += clientFrame(.ping, "p\(index)")
            expectedEvents.append(.ping(Array("p\(index)".utf8)))
            expectedOutput += serverFrame(.pong, Array("p\(index)".utf8))
        }
        input += clientFrame(.continuation, "!")
        expectedEvents.append(.text("f0f1f2f3f4!"))
        expectConnection(input, events: expectedEvents, writes: expectedOutput)
    }

    @Test("RFC 6455 §10.4: a fragmented message whose total passes maxMessageSize fails with 1009 at the offending header")
    func messageTotalOverLimit() {
        let limits = WebSocketLimits(maxFrameSize: 100, maxMessageSize: 150)
        let first = clientFrame(.binary, [UInt8](repeating: 1, count: 100), fin: false)
        let second = clientFrame(.continuation, [UInt8](repeating: 2, count: 51))
        expectConnection(limits: limits, first + second, events: [failure(.messageTooBig)], writes: ServerClose.tooBig, state: .closed)
        // The failure comes at the second frame's header, before its payload: feed byte by byte and check the offset.
        var session = ConnectionSession(role: .server, limits: limits)
        for byte in first + second { session.feed([byte]) }
        #expect(session.eventOffsets == [first.count + 2], "2 header bytes of the second frame carry its length")
        // Exactly at the limit passes.
        let exact = clientFrame(.continuation, [UInt8](repeating: 2, count: 50))
        expectConnection(limits: limits, first + exact, events: [.binary([UInt8](repeating: 1, count: 100) + [UInt8](repeating: 2, count: 50))])
    }

    @Test("ParserVerifier: several messages concatenated in shuffled orders give the concatenated events")
    func concatenatedShuffled() {
        let cases: [(input: [UInt8], expected: [WebSocketEvent])] = [
            (clientFrame(.text, "Hello"), [.text("Hello")]),
            (clientFrame(.binary, [0, 1, 2]), [.binary([0, 1, 2])]),
            (clientFrame(.pong, "pong"), [.pong(Array("pong".utf8))]),
            (clientFrame(.text, "κό", fin: false) + clientFrame(.continuation, "σμε"), [.text("κόσμε")]),
            (clientFrame(.binary, [UInt8](repeating: 7, count: 300)), [.binary([UInt8](repeating: 7, count: 300))]),
        ]
        let mismatches = ParserVerifier.verifyConcatenated(
            cases, makeSession: { ConnectionSession(role: .server) }, feed: { $0.feed($1) }, transcript: { $0.events })
        #expect(mismatches.isEmpty, "\(mismatches.prefix(2))")
    }
}
