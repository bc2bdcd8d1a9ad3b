import HeraldTestSupport
import HeraldWebSocket
import Testing

/// RFC 6455 §5.5.1 and §7: the close handshake and close codes.
@Suite("Close handshake (RFC 6455 §5.5.1, §7)")
struct CloseTests {
    /// Codes a peer may send (§7.4.1, §7.4.2, IANA 1012-1014).
    static let validCodes: [UInt16] = [1000, 1001, 1002, 1003, 1007, 1008, 1009, 1010, 1011, 1012, 1013, 1014, 3000, 3999, 4000, 4999]
    /// Codes that must fail the connection with 1002 (Autobahn 7.9.x and the ends of every range).
    static let invalidCodes: [UInt16] = [0, 999, 1004, 1005, 1006, 1015, 1016, 1100, 2000, 2999, 5000, 65535]

    @Test("RFC 6455 §7.4: isValidOnWire table", arguments: validCodes.map { ($0, true) } + invalidCodes.map { ($0, false) })
    func validity(code: UInt16, valid: Bool) {
        #expect(CloseCode(rawValue: code).isValidOnWire == valid)
    }

    @Test("RFC 6455 §5.5.1: a valid close code is echoed and the connection closes (Autobahn 7.7.x)", arguments: validCodes)
    func case7_7_validCodeEchoed(code: UInt16) {
        let payload = [UInt8(code >> 8), UInt8(code & 0xFF)] + Array("bye".utf8)
        // Reply: 88 02 + the same code, no reason.
        expectConnection(clientFrame(.close, payload), events: [.closed(code: CloseCode(rawValue: code), reason: "bye")],
                         writes: [0x88, 0x02, UInt8(code >> 8), UInt8(code & 0xFF)], state: .closed)
    }

    @Test("RFC 6455 §7.4: an invalid close code fails with 1002 (Autobahn 7.9.x)", arguments: invalidCodes)
    func case7_9_invalidCode(code: UInt16) {
        expectConnection(clientFrame(.close, [UInt8(code >> 8), UInt8(code & 0xFF)]), events: [failure(.protocolError)],
                         writes: ServerClose.protocolError, state: .closed)
    }

    @Test("RFC 6455 §5.5.1: an empty close is reported without a code and answered with an empty close (Autobahn 7.3.1)")
    func case7_3_1_emptyClose() {
        // 88 80 key: FIN+close, MASK, length 0 -> reply 88 00.
        expectConnection(hex("88 80 37 FA 21 3D"), events: [.closed(code: nil, reason: "")], writes: hex("88 00"), state: .closed)
    }

    @Test("RFC 6455 §5.5.1: a 1-byte close payload fails with 1002 (Autobahn 7.3.2)")
    func case7_3_2_oneByteClose() {
        expectConnection(clientFrame(.close, [0x03]), events: [failure(.protocolError)], writes: ServerClose.protocolError, state: .closed)
    }

    @Test("RFC 6455 §5.5.1: a close with a 123-byte reason is accepted (Autobahn 7.3.4)")
    func case7_3_4_maximalReason() {
        let reason = String(repeating: "*", count: 123)
        expectConnection(clientFrame(.close, hex("03 E8") + Array(reason.utf8)), events: [.closed(code: .normal, reason: reason)],
                         writes: hex("88 02 03 E8"), state: .closed)
    }

    @Test("RFC 6455 §8.1: a close reason with invalid UTF-8 fails with 1007 (Autobahn 7.5.1)")
    func case7_5_1_invalidReason() {
        // 03 E8 = 1000, then κόσμε with a surrogate.
        expectConnection(clientFrame(.close, hex("03 E8 CE BA E1 BD B9 CF 83 CE BC CE B5 ED A0 80 65 64")), events: [failure(.invalidPayload)],
                         writes: ServerClose.invalidPayload, state: .closed)
    }

    @Test("RFC 6455 §1.4: data after the peer's close is ignored (Autobahn 7.1.3-7.1.5)")
    func case7_1_dataAfterCloseIgnored() {
        let input = clientFrame(.close, hex("03 E8")) + clientFrame(.text, "late") + clientFrame(.ping, "late")
        expectConnection(input, events: [.closed(code: .normal, reason: "")], writes: hex("88 02 03 E8"), state: .closed)
    }

    @Test("RFC 6455 §5.5.1: a close between fragments is honoured immediately (Autobahn 7.1.6)")
    func closeBetweenFragments() {
        let input = clientFrame(.text, "frag", fin: false) + clientFrame(.close, hex("03 E9")) + clientFrame(.continuation, "ment")
        expectConnection(input, events: [.closed(code: .goingAway, reason: "")], writes: hex("88 02 03 E9"), state: .closed)
    }

    @Test("RFC 6455 §7.1.2: our close moves to closing; the peer's reply closes without another frame")
    func ourCloseAnswered() {
        var server = WebSocketStateMachine(role: .server)
        var output: [UInt8] = []
        server.close(code: .goingAway, reason: "bye", into: &output)
        // 88 05 03 E9 "bye": FIN+close, length 5, 1001, reason.
        #expect(output == hex("88 05 03 E9 62 79 65"))
        #expect(server.state == .closing)
        // While closing, data still arrives, but we send nothing more (§5.5.1).
        #expect(!server.sendText("late", into: &output))
        var events: [WebSocketEvent] = []
        output = []
        server.receive(clientFrame(.text, "in flight") + clientFrame(.ping, "p") + clientFrame(.close, hex("03 E9")), output: &output) { events.append($0) }
        #expect(events == [.text("in flight"), .ping(Array("p".utf8)), .closed(code: .goingAway, reason: "")])
        #expect(output.isEmpty, "no pong and no second close once we have sent close")
        #expect(server.state == .closed)
        // A second close call does nothing.
        server.close(code: .normal, reason: "", into: &output)
        #expect(output.isEmpty)
    }

    @Test("RFC 6455 §7.1.7: a protocol error while closing fails without sending a second close")
    func failureWhileClosing() {
        var server = WebSocketStateMachine(role: .server)
        var output: [UInt8] = []
        server.close(code: .normal, reason: "", into: &output)
        output = []
        var events: [WebSocketEvent] = []
        server.receive(hex("83 80 37 FA 21 3D"), output: &output) { events.append($0) }
        #expect(events.map(withoutReason) == [failure(.protocolError)])
        #expect(output.isEmpty)
        #expect(server.state == .closed)
    }

    @Test("RFC 6455 §5.5: a close reason is cut to fit 125 bytes at a character boundary; 1005 is never sent")
    func closePayloadLimits() {
        let payload = FrameEncoder.closePayload(code: .normal, reason: String(repeating: "é", count: 100))
        #expect(payload.count == 124, "2 code bytes + 61 two-byte characters; a 62nd would make 126")
        #expect(UTF8Validator.isValid(Array(payload[2...])))
        #expect(FrameEncoder.closePayload(code: .noStatus, reason: "x").isEmpty)
        #expect(FrameEncoder.closePayload(code: .abnormal, reason: "x").isEmpty)
    }
}
