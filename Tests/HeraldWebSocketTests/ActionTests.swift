import HeraldWebSocket
import Testing

/// The ordered action list a ``WebSocketStateMachine`` returns per input: what a transport carries out, in wire order.
@Suite("Actions in wire order (RFC 6455 §5.5, §5.6, §7.1.7)")
struct ActionTests {
    @Test("RFC 6455 §5.6: a text message is delivered as a range of validated UTF-8 bytes, never a string")
    func textDeliveredAsBytes() {
        var machine = WebSocketStateMachine(role: .server)
        machine.receive(clientFrame(.text, "héllo"), now: 0)
        #expect(machine.actions == [.deliver(.text, bytes: 0..<6)])
        #expect(Array(machine.received[0..<6]) == Array("héllo".utf8))
    }

    @Test("RFC 6455 §5.5.2: ping, message and pong come out in wire order, each pong written in its ping's place")
    func pingBetweenMessages() {
        var machine = WebSocketStateMachine(role: .server)
        machine.receive(clientFrame(.text, "a") + clientFrame(.ping, "p") + clientFrame(.binary, [7]) + clientFrame(.pong, "q"), now: 0)
        guard machine.actions.count == 5 else { Issue.record("\(machine.actions)"); return }
        #expect(machine.actions[0] == .deliver(.text, bytes: 0..<1))
        #expect(machine.actions[1] == .write(bytes: 0..<3))
        #expect(Array(machine.outgoing[0..<3]) == hex("8A 01 70"))
        #expect(machine.actions[2] == .receivedPing(payload: 1..<2))
        #expect(machine.actions[3] == .deliver(.binary, bytes: 2..<3))
        #expect(machine.actions[4] == .receivedPong(payload: 3..<4))
        #expect(Array(machine.received) == Array("ap".utf8) + [7] + Array("q".utf8))
    }

    @Test("RFC 6455 §7.1.7: a message before a bad frame is delivered before the close the bad frame causes")
    func messageBeforeFailure() {
        var machine = WebSocketStateMachine(role: .server)
        // The second frame is unmasked: a server must fail the connection (§5.1).
        machine.receive(clientFrame(.text, "ok") + hex("81 01 41"), now: 0)
        guard machine.actions.count == 5 else { Issue.record("\(machine.actions)"); return }
        #expect(machine.actions[0] == .deliver(.text, bytes: 0..<2))
        #expect(machine.actions[1] == .write(bytes: 0..<4))
        #expect(Array(machine.outgoing) == hex("88 02 03 EA"))
        guard case .failed(let error) = machine.actions[2] else { Issue.record("\(machine.actions)"); return }
        #expect(error.closeCode == .protocolError)
        #expect(machine.actions[3] == .closeTransport(afterFlush: true))
        #expect(machine.actions[4] == .setTimer(at: nil))  // no close timeout configured here
        #expect(machine.state == .closed)
    }

    @Test("RFC 6455 §5.5.1: the peer's close is answered, reported with its reason bytes, then the transport closes")
    func peerClose() {
        var machine = WebSocketStateMachine(role: .server)
        machine.receive(clientFrame(.close, hex("03 E8") + Array("bye".utf8)), now: 0)
        #expect(machine.actions == [
            .write(bytes: 0..<4), .peerClosed(code: .normal, reason: 0..<3), .closeTransport(afterFlush: true), .setTimer(at: nil),
        ])
        #expect(Array(machine.received) == Array("bye".utf8))
        #expect(Array(machine.outgoing) == hex("88 02 03 E8"))
    }

    @Test("RFC 6455 §5.4: a message split over reads is delivered once, by the read that completes it")
    func messageAcrossReads() {
        var machine = WebSocketStateMachine(role: .server)
        let frame = clientFrame(.text, "fragmented")
        machine.receive(Array(frame[..<5]), now: 0)
        #expect(machine.actions.isEmpty)
        machine.receive(Array(frame[5...]), now: 0)
        #expect(machine.actions == [.deliver(.text, bytes: 0..<10)])
        #expect(Array(machine.received) == Array("fragmented".utf8))
    }

    @Test("RFC 6455 §5.5.1: a data frame the application sends after our close is refused; encodeMessage still frames it")
    func sendingAfterClose() {
        var machine = WebSocketStateMachine(role: .server)
        var output: [UInt8] = []
        #expect(machine.close(code: .normal, reason: "", now: 0, into: &output))
        #expect(!machine.sendText("late", into: &output))
        #expect(output == hex("88 02 03 E8"))
        var encoded: [UInt8] = []
        "x".utf8.withContiguousStorageIfAvailable { machine.encodeMessage(.text, payload: UnsafeRawBufferPointer($0), into: &encoded) }
        #expect(encoded == hex("81 01 78"))
    }
}
