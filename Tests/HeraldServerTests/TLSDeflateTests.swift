import Foundation
import HeraldDeflate
import HeraldTestSupport
import HeraldWebSocket
import Testing

/// permessage-deflate (RFC 7692) like Autobahn sections 12 and 13: compressible messages of many sizes, with each
/// negotiated parameter set, echoed by /echo over ws:// and wss://. The client side is HeraldDeflate in the client role
/// on a raw socket, so every frame's RSV1 bit and compressed payload are checked as they came over the wire.
@Suite("TLS: permessage-deflate echo over ws:// and wss:// (Autobahn 12/13 class)")
struct TLSDeflateTests {
    /// What a client offers; Autobahn 13.x varies these.
    static let offers: [(String, PerMessageDeflateClientConfiguration)] = {
        let plain = PerMessageDeflateClientConfiguration()
        var clientNoTakeover = plain
        clientNoTakeover.noContextTakeover = true
        var serverNoTakeover = plain
        serverNoTakeover.requestServerNoContextTakeover = true
        var smallWindows = plain
        smallWindows.requestServerMaxWindowBits = 9
        smallWindows.maxWindowBits = 9
        var both = plain
        both.noContextTakeover = true
        both.requestServerNoContextTakeover = true
        both.requestServerMaxWindowBits = 15
        return [("default", plain), ("client_no_context_takeover", clientNoTakeover), ("server_no_context_takeover", serverNoTakeover),
                ("max_window_bits=9", smallWindows), ("both no_context_takeover, server_max_window_bits=15", both)]
    }()

    /// Chat-like JSON, compressible like real traffic (not random bytes).
    static func message(byteCount: Int, seed: Int) -> [UInt8] {
        var text = ""
        var index = seed
        while text.utf8.count < byteCount {
            text += #"{"type":"event","event":"message","seq":\#(index),"message":{"id":"m\#(index)","conversation":"c7","#
                + #""sender":"alice","text":"see you at \#(index % 24):00 ✓"}}"#
            index += 1
        }
        // Cut on a character boundary (a cut "✓" would be invalid UTF-8, 1007), then pad to the exact size.
        while text.utf8.count > byteCount { text.removeLast() }
        return Array(text.utf8) + Array(repeating: UInt8(ascii: " "), count: byteCount - text.utf8.count)
    }

    /// Upgrades with `offer`, then echoes compressible messages of Autobahn 12.x sizes, three of each.
    static func echoCompressed(port: Int, offer: PerMessageDeflateClientConfiguration, label: String) throws {
        let client = try RawWebSocketClient(port: port, timeoutMilliseconds: 10_000)
        let request = RawWebSocketClient.upgradeRequest(path: "/echo", extraHeaders: [("Sec-WebSocket-Extensions", offer.offerHeader)])
        try client.send(request.bytes)
        let response = try client.readHTTPResponse()
        try #require(response.status == 101)
        let agreed = try #require(try offer.acceptResponse(response.headers.filter { $0.0.lowercased() == "sec-websocket-extensions" }.map(\.1)),
                                  "\(label): server declined the offer \(offer.offerHeader)")
        let deflate = try PerMessageDeflate(parameters: agreed, role: .client)
        var compressedCount = 0
        for size in [16, 64, 256, 1024, 4096, 16384, 65536, 131072] {
            for round in 0..<3 {
                let payload = message(byteCount: size, seed: size + round)
                var compressed: [UInt8] = []
                let didCompress = payload.withUnsafeBytes { deflate.compress($0, into: &compressed) }
                try client.sendFrame(opcode: 0x1, payload: didCompress ? compressed : payload, rsv: didCompress ? 0b100 : 0)
                let frame = try client.readFrame()
                #expect(frame.opcode == 0x1 && frame.fin, "\(label) size \(size)")
                var echoed: [UInt8] = []
                if frame.rsv & 0b100 != 0 {
                    compressedCount += 1
                    #expect(frame.payload.count < size, "\(label): \(size) compressible bytes came back as \(frame.payload.count)")
                    #expect(frame.payload.withUnsafeBytes { deflate.decompress($0, appendingTo: &echoed, limit: 1 << 20) } == nil)
                    #expect(deflate.finishMessage(appendingTo: &echoed, limit: 1 << 20) == nil)
                } else {
                    echoed = frame.payload
                }
                #expect(echoed == payload, "\(label) size \(size) round \(round)")
            }
        }
        #expect(compressedCount >= 18, "\(label): the server compressed only \(compressedCount) of 24 echoes")
        try client.sendClose(code: 1000)
        #expect(try client.readCloseCode() == 1000)
    }

    @Test("RFC 7692 over ws:// and wss://: 16 B-128 KiB messages echo through each negotiated parameter set")
    func deflateEchoPlainAndTLS() throws {
        let certificate = try ServerTestCertificate.shared.get()
        let server = try ServerHarness.start(["--bench-endpoints", "--tls-port", "0"] + certificate.serverArguments)
        defer { server.stop() }
        let tlsLine = try #require(server.standardOutput.split(separator: "\n").first { $0.hasPrefix("herald-server tls listening on ") })
        let tlsPort = try #require(tlsLine.split(separator: ":").last.flatMap { Int($0) })
        let tunnel = try TLSTunnel(targetPort: tlsPort, caFile: certificate.certificateFile)
        for (name, offer) in Self.offers {
            try Self.echoCompressed(port: server.port, offer: offer, label: "ws \(name)")
            try Self.echoCompressed(port: tunnel.port, offer: offer, label: "wss \(name)")
        }
    }
}
