import HeraldDeflate
import HeraldWebSocket
import Testing

/// A named way to configure both ends, like Autobahn's 12.x/13.x parameter sets.
struct ParameterSet: Sendable, CustomTestStringConvertible {
    let name: String
    let client: PerMessageDeflateClientConfiguration
    let server: PerMessageDeflateServerConfiguration
    var testDescription: String { name }

    static let all: [ParameterSet] = {
        var takeover = PerMessageDeflateServerConfiguration()
        takeover.noContextTakeover = false
        let plainClient = PerMessageDeflateClientConfiguration()
        var clientReset = PerMessageDeflateClientConfiguration()
        clientReset.noContextTakeover = true
        var smallWindows = PerMessageDeflateClientConfiguration()
        smallWindows.requestServerMaxWindowBits = 9
        smallWindows.maxWindowBits = 9
        var mixed = PerMessageDeflateClientConfiguration()
        mixed.requestServerMaxWindowBits = 12
        mixed.requestServerNoContextTakeover = true
        var limitingServer = takeover
        limitingServer.clientMaxWindowBits = 10
        limitingServer.maxWindowBits = 11
        return [
            ParameterSet(name: "context takeover both ways", client: plainClient, server: takeover),
            ParameterSet(name: "server_no_context_takeover (server default)", client: plainClient, server: .init()),
            ParameterSet(name: "client_no_context_takeover", client: clientReset, server: takeover),
            ParameterSet(name: "no context takeover both ways", client: clientReset, server: .init()),
            ParameterSet(name: "windows 9/9", client: smallWindows, server: takeover),
            ParameterSet(name: "server window 12, no takeover", client: mixed, server: takeover),
            ParameterSet(name: "server limits windows 11/10", client: plainClient, server: limitingServer),
        ]
    }()
}

@Suite("permessage-deflate round trips (RFC 7692 §7.2; Autobahn 12.x, 13.x)")
struct RoundTripTests {
    static let sizes = [0, 1, 125, 126, 1000, 65535, 65536, 1 << 20]

    @Test("Text both ways, three messages each, every parameter set and size", arguments: ParameterSet.all, sizes)
    func roundTrip(_ set: ParameterSet, _ size: Int) throws {
        var options = PerMessageDeflateOptions()
        options.minimumSizeToCompress = 1  // compress everything but the empty message
        var pair = try DeflatePair(client: set.client, server: set.server, options: options)
        let text = compressibleText(size)
        for round in 0..<3 {
            var wire: [UInt8] = []
            #expect(pair.client.sendText(text, into: &wire))
            // RSV1 marks the compressed message (§6); an empty message is sent plain.
            #expect((wire[0] & 0x40 != 0) == (size > 0), "round \(round)")
            if size > 1000 { #expect(wire.count < size / 2, "compressible text must shrink") }
            let atServer = pair.server.feed(wire)
            #expect(atServer.events == [.text(text)], "round \(round)")

            var back: [UInt8] = []
            #expect(pair.server.sendText(text, into: &back))
            #expect((back[0] & 0x40 != 0) == (size > 0))
            let atClient = pair.client.feed(back)
            #expect(atClient.events == [.text(text)], "round \(round)")
        }
    }

    @Test("Binary messages fed one byte at a time")
    func binaryByteByByte() throws {
        var options = PerMessageDeflateOptions()
        options.minimumSizeToCompress = 1
        var pair = try DeflatePair(options: options)
        let message = Array(compressibleText(5000).utf8) + [0, 0xFF, 0x80]
        var wire: [UInt8] = []
        #expect(pair.client.sendBinary(message, into: &wire))
        var events: [WebSocketEvent] = []
        for byte in wire { events += pair.server.feed([byte]).events }
        #expect(events == [.binary(message)])
    }

    @Test("RFC 7692 §6: a compressed message may be fragmented; RSV1 only on the first frame")
    func fragmentedCompressedMessage() throws {
        var pair = try DeflatePair()
        let text = compressibleText(3000)
        let shared = try SharedMessageCompressor(windowBits: 15)
        let compressed = shared.compressOnce(Array(text.utf8))
        let cut1 = compressed.count / 3, cut2 = 2 * compressed.count / 3
        var wire = clientFrame(.text, Array(compressed[..<cut1]), fin: false, rsv1: true)
        wire += clientFrame(.ping, [1, 2], rsv1: false)  // a control frame between fragments (§5.4)
        wire += clientFrame(.continuation, Array(compressed[cut1..<cut2]), fin: false, rsv1: false)
        wire += clientFrame(.continuation, Array(compressed[cut2...]), fin: true, rsv1: false)
        let result = pair.server.feed(wire)
        #expect(result.events == [.ping([1, 2]), .text(text)])
    }

    @Test("Messages below the threshold go uncompressed with RSV1 clear")
    func threshold() throws {
        var options = PerMessageDeflateOptions()
        options.minimumSizeToCompress = 100
        var pair = try DeflatePair(options: options)
        var small: [UInt8] = []
        pair.server.sendText(compressibleText(99), into: &small)
        #expect(small[0] == 0x81)  // FIN, RSV1 clear, text
        #expect(serverFramePayload(small) == Array(compressibleText(99).utf8))
        var large: [UInt8] = []
        pair.server.sendText(compressibleText(100), into: &large)
        #expect(large[0] == 0xC1)  // FIN, RSV1, text
        #expect(pair.client.feed(small + large).events == [.text(compressibleText(99)), .text(compressibleText(100))])
    }

    @Test("RFC 7692 §7.1.1: context takeover shrinks a repeated message; without it every copy costs the same")
    func contextTakeoverShrinksRepeats() throws {
        var takeover = PerMessageDeflateServerConfiguration()
        takeover.noContextTakeover = false
        var withContext = try DeflatePair(server: takeover)
        var withoutContext = try DeflatePair(server: .init())
        // Varied text, so the first copy compresses only moderately and the second can point at the first.
        let message = (0..<60).map { "user\($0 * 7919 % 1000) joined room \($0 * 104_729 % 997); " }.joined()
        func sizes(_ pair: inout DeflatePair) -> [Int] {
            (0..<3).map { _ in
                var frame: [UInt8] = []
                pair.server.sendText(message, into: &frame)
                #expect(pair.client.feed(frame).events == [.text(message)])
                return frame.count
            }
        }
        let kept = sizes(&withContext)
        let reset = sizes(&withoutContext)
        #expect(kept[1] * 4 < kept[0], "second copy refers back to the first: \(kept)")
        #expect(reset[0] == reset[1] && reset[1] == reset[2], "\(reset)")
        #expect(kept[0] == reset[0])
    }

    @Test("Fan-out: compressOnce output is decoded by every receiver without server context takeover")
    func compressOnceFanOut() throws {
        let shared = try SharedMessageCompressor(windowBits: 15)
        var receivers = try (0..<3).map { _ in try DeflatePair() }
        #expect(receivers.allSatisfy { $0.serverDeflate.sharedCompressionWindowBits == 15 })
        for text in [compressibleText(10_000), compressibleText(20), ""] {
            var frame: [UInt8] = []
            FrameEncoder.encodeServerFrame(opcode: .text, payload: shared.compressOnce(Array(text.utf8)), compressed: true, into: &frame)
            #expect(frame[0] == 0xC1)
            for index in receivers.indices {
                #expect(receivers[index].client.feed(frame).events == [.text(text)])
            }
        }
        // The receivers' own (per-connection) messages still decode after shared ones.
        var own: [UInt8] = []
        receivers[0].server.sendText(compressibleText(500), into: &own)
        #expect(receivers[0].client.feed(own).events == [.text(compressibleText(500))])
    }

    @Test("sendMessage(_:payload:into:) compresses whole text/binary messages and refuses other opcodes")
    func sendMessageAPI() throws {
        var pair = try DeflatePair()
        let text = Array(compressibleText(2000).utf8)
        var wire: [UInt8] = []
        #expect(text.withUnsafeBytes { pair.server.sendMessage(.text, payload: $0, into: &wire) })
        #expect(wire[0] == 0xC1 && wire.count < text.count / 2)
        #expect(!text.withUnsafeBytes { pair.server.sendMessage(.ping, payload: $0, into: &wire) })
        #expect(pair.client.feed(wire).events == [.text(String(decoding: text, as: UTF8.self))])
    }

    @Test("With server context takeover a connection cannot share compressed frames")
    func takeoverHasNoSharedContext() throws {
        var takeover = PerMessageDeflateServerConfiguration()
        takeover.noContextTakeover = false
        let pair = try DeflatePair(server: takeover)
        #expect(pair.serverDeflate.sharedCompressionWindowBits == nil)
    }
}

@Suite("permessage-deflate memory")
struct DeflateMemoryTests {
    @Test("Without context takeover, connections interleaving sends on one thread still produce independent messages")
    func sharedThreadCompressorInterleaved() throws {
        var pairs = try (0..<4).map { _ in try DeflatePair() }  // server default: server_no_context_takeover
        for round in 0..<3 {
            for index in pairs.indices {
                let text = compressibleText(500 + 300 * index + round)
                var frame: [UInt8] = []
                pairs[index].server.sendText(text, into: &frame)
                #expect(frame[0] == 0xC1)
                #expect(pairs[index].client.feed(frame).events == [.text(text)], "pair \(index) round \(round)")
            }
        }
    }
}
