import Foundation
import HeraldDeflate
import HeraldTestSupport
import HeraldWebSocket
import Testing

/// Bytes on the wire for a typical chat conversation, with and without permessage-deflate (for the README): alice
/// sends 50 realistic messages to bob over /sync; we sum the WebSocket frame bytes (header + payload) the server sent
/// to each of them: bob's 50 `message` events, alice's 50 `send` responses (plus the sync and dm answers).
@Suite("Interop: bytes on the wire for 50 /sync messages, with and without compression")
struct InteropWireBytesTests {
    static let lines = [
        "hey, are we still on for lunch tomorrow?", "yes! 12:30 at the usual place?", "perfect, I'll book a table",
        "did you see the deploy notes from this morning?", "not yet, anything I should know about?",
        "the sync server now speaks TLS, so wss:// works out of the box", "nice 🎉 does it reload certs without a restart?",
        "SIGHUP and new connections pick up the new certificate", "ok cool. can you review my PR after lunch?",
        "sure, send me the link", "https://example.org/herald/pull/42", "on it 👍",
    ]

    struct Tally {
        var frames = 0
        var wireBytes = 0
        var payloadBytes = 0
        var compressedFrames = 0
        /// The uncompressed payloads, to price what deflate would make of them.
        var payloads: [[UInt8]] = []
    }

    /// Wire bytes of `payloads` if each were sent compressed by a server-role deflater with `parameters`
    /// (messages under the 64-byte minimum stay uncompressed, as the server does).
    static func deflatedWireBytes(_ payloads: [[UInt8]], parameters: PerMessageDeflateParameters) throws -> Int {
        let deflate = try PerMessageDeflate(parameters: parameters, role: .server)
        var total = 0
        for payload in payloads {
            var compressed: [UInt8] = []
            let length = payload.withUnsafeBytes { deflate.compress($0, into: &compressed) } ? compressed.count : payload.count
            total += length + (length <= 125 ? 2 : length <= 0xFFFF ? 4 : 10)
        }
        return total
    }

    /// Opens /sync with or without offering permessage-deflate; returns the client and the agreed compression.
    static func connect(port: Int, token: String, compress: Bool) throws -> (RawWebSocketClient, PerMessageDeflate?) {
        let client = try RawWebSocketClient(port: port, timeoutMilliseconds: 10_000)
        var headers = [("Authorization", "Bearer \(token)"), ("Sec-WebSocket-Protocol", "herald.v1")]
        let offer = PerMessageDeflateClientConfiguration()
        if compress { headers.append(("Sec-WebSocket-Extensions", offer.offerHeader)) }
        try client.send(RawWebSocketClient.upgradeRequest(path: "/sync", extraHeaders: headers).bytes)
        let response = try client.readHTTPResponse()
        try #require(response.status == 101, "\(response.status) \(response.body)")
        let agreed = try offer.acceptResponse(response.headers.filter { $0.0.lowercased() == "sec-websocket-extensions" }.map(\.1))
        return (client, try agreed.map { try PerMessageDeflate(parameters: $0, role: .client) })
    }

    /// Reads one server message, counting its wire size, and returns its text.
    static func read(_ client: RawWebSocketClient, _ deflate: PerMessageDeflate?, into tally: inout Tally) throws -> String {
        let frame = try client.readFrame()
        let length = frame.payload.count
        tally.frames += 1
        tally.wireBytes += length + (length <= 125 ? 2 : length <= 0xFFFF ? 4 : 10)
        var text = frame.payload
        if frame.rsv & 0b100 != 0, let deflate {
            tally.compressedFrames += 1
            text = []
            _ = frame.payload.withUnsafeBytes { deflate.decompress($0, appendingTo: &text, limit: 1 << 20) }
            _ = deflate.finishMessage(appendingTo: &text, limit: 1 << 20)
        }
        tally.payloadBytes += text.count
        tally.payloads.append(text)
        return String(decoding: text, as: UTF8.self)
    }

    static func object(_ text: String) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any] ?? [:]
    }

    static func response(_ client: RawWebSocketClient, _ deflate: PerMessageDeflate?, id: Int, into tally: inout Tally) throws -> [String: Any] {
        while true {
            let json = object(try read(client, deflate, into: &tally))
            if json["type"] as? String == "response", json["id"] as? Int == id { return json }
        }
    }

    /// Runs the conversation; returns what the server sent to alice and to bob.
    static func conversation(server: ServerHarness, compress: Bool, alice: String, bob: String) throws -> (Tally, Tally) {
        var aliceTally = Tally(), bobTally = Tally()
        let (bobClient, bobDeflate) = try connect(port: server.port, token: bob, compress: compress)
        let (aliceClient, aliceDeflate) = try connect(port: server.port, token: alice, compress: compress)
        #expect((bobDeflate != nil) == compress && (aliceDeflate != nil) == compress)
        try bobClient.sendText(#"{"type":"sync","id":1}"#)
        _ = try response(bobClient, bobDeflate, id: 1, into: &bobTally)
        try aliceClient.sendText(#"{"type":"sync","id":1}"#)
        _ = try response(aliceClient, aliceDeflate, id: 1, into: &aliceTally)
        try aliceClient.sendText(#"{"type":"dm","id":2,"user":"bob"}"#)
        let dm = try response(aliceClient, aliceDeflate, id: 2, into: &aliceTally)
        let conversation = try #require((dm["conversation"] as? [String: Any])?["id"] as? String, "dm answered \(dm)")
        var bobMessages = 0
        for index in 0..<50 {
            let text = lines[index % lines.count]
            try aliceClient.sendText(#"{"type":"send","id":\#(index + 3),"conversation":"\#(conversation)","clientMessageId":"wire-\#(compress)-\#(index)","text":"\#(text)"}"#)
            _ = try response(aliceClient, aliceDeflate, id: index + 3, into: &aliceTally)
            while bobMessages <= index {
                if object(try read(bobClient, bobDeflate, into: &bobTally))["event"] as? String == "message" { bobMessages += 1 }
            }
        }
        #expect(bobMessages == 50)
        return (aliceTally, bobTally)
    }

    @Test("permessage-deflate shrinks a 50-message /sync conversation on the wire (README numbers)")
    func wireBytes() throws {
        let server = try ServerHarness.start([])
        defer { server.stop() }
        func token(_ user: String) throws -> String {
            let (status, output) = try InteropClientTests.run([ServerHarness.binaryPath(), "token", user, "--db", server.databasePath])
            try #require(status == 0, "\(output)")
            return output.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        let alice = try token("alice"), bob = try token("bob")
        let (plainAlice, plainBob) = try Self.conversation(server: server, compress: false, alice: alice, bob: bob)
        let (deflateAlice, deflateBob) = try Self.conversation(server: server, compress: true, alice: alice, bob: bob)
        let sent = plainBob.payloads + plainAlice.payloads
        let plainTotal = plainBob.wireBytes + plainAlice.wireBytes
        let perMessage = try Self.deflatedWireBytes(sent, parameters: PerMessageDeflateParameters(serverNoContextTakeover: true))
        let withContext = try Self.deflatedWireBytes(sent, parameters: PerMessageDeflateParameters())
        let report = """
            wire bytes server→client for 50 /sync messages (frames: header + payload):
              plain:                                   bob \(plainBob.wireBytes) B in \(plainBob.frames) frames, alice \(plainAlice.wireBytes) B in \(plainAlice.frames) frames, total \(plainTotal) B
              deflate negotiated, as measured:         bob \(deflateBob.wireBytes) B (\(deflateBob.compressedFrames) frames compressed), alice \(deflateAlice.wireBytes) B (\(deflateAlice.compressedFrames) compressed)
              same frames deflated per message (server_no_context_takeover, the server's setting): \(perMessage) B
              same frames deflated with context takeover:                                          \(withContext) B
            """
        print(report)
        #expect(perMessage < plainTotal && withContext < perMessage, "\(report)")
        // RFC 7692: /sync's shared frames are deflated (once per loop) for sessions that negotiated it.
        #expect(deflateBob.compressedFrames >= 50 && deflateAlice.compressedFrames >= 50, "\(report)")
        #expect(deflateBob.wireBytes + deflateAlice.wireBytes < plainTotal, "\(report)")
    }
}
