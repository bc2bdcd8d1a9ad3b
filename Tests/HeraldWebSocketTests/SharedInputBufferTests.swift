import HeraldWebSocket
import Testing

/// The connections of one loop share one set of input buffers (`WebSocketStateMachine.InputBuffers`): each borrows
/// them for a read and gives them back after, unless the read ended inside a frame. These tests interleave two
/// machines on one spare set, the way two sessions of a loop take turns, and check that no byte crosses over.
@Suite("Shared input buffers")
struct SharedInputBufferTests {
    /// One read of `bytes` the way a session does it: borrow, receive, collect what was delivered, give back.
    private func read(_ machine: inout WebSocketStateMachine, _ bytes: [UInt8], spare: inout WebSocketStateMachine.InputBuffers) -> [[UInt8]] {
        machine.borrowBuffers(from: &spare)
        machine.receive(bytes, now: 0)
        var messages: [[UInt8]] = []
        for case .deliver(_, let range) in machine.actions { messages.append(Array(machine.received[range])) }
        machine.returnBuffers(to: &spare)
        return messages
    }

    @Test("Between reads an idle machine holds no buffer; the next read reuses the same spare")
    func idleMachineHoldsNothing() {
        var spare = WebSocketStateMachine.InputBuffers()
        var first = WebSocketStateMachine(role: .server)
        var second = WebSocketStateMachine(role: .server)
        #expect(read(&first, clientFrame(.text, "hello"), spare: &spare) == [Array("hello".utf8)])
        #expect(first.isBetweenMessages)
        #expect(first.actions.capacity == 0 && first.received.capacity == 0 && first.outgoing.capacity == 0)
        // A ping makes the machine write a pong: its outgoing buffer, too, goes back.
        #expect(read(&second, clientFrame(.ping, "p"), spare: &spare) == [])
        #expect(second.actions.capacity == 0 && second.outgoing.capacity == 0)
        #expect(read(&first, clientFrame(.text, "again"), spare: &spare) == [Array("again".utf8)])
    }

    @Test("A frame split across reads keeps its partial payload while another machine uses the spare")
    func partialFrameSurvivesOtherReads() {
        var spare = WebSocketStateMachine.InputBuffers()
        var split = WebSocketStateMachine(role: .server)
        var other = WebSocketStateMachine(role: .server)
        let frame = clientFrame(.text, "split across two reads")
        for cut in 1..<frame.count {
            #expect(read(&split, Array(frame[..<cut]), spare: &spare) == [])
            #expect(!split.isBetweenMessages, "cut at \(cut)")
            #expect(read(&other, clientFrame(.text, "in between"), spare: &spare) == [Array("in between".utf8)])
            #expect(read(&split, Array(frame[cut...]), spare: &spare) == [Array("split across two reads".utf8)], "cut at \(cut)")
            #expect(split.isBetweenMessages)
        }
    }

    @Test("A 200 KB frame arriving in 1,000-byte reads, interleaved with another machine, arrives whole")
    func largeFrameAcrossManyReads() {
        var spare = WebSocketStateMachine.InputBuffers()
        var large = WebSocketStateMachine(role: .server)
        var other = WebSocketStateMachine(role: .server)
        let payload = (0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        let frame = clientFrame(.binary, payload)
        var delivered: [[UInt8]] = []
        var offset = 0
        while offset < frame.count {
            let end = min(offset + 1_000, frame.count)
            delivered += read(&large, Array(frame[offset..<end]), spare: &spare)
            offset = end
            #expect(read(&other, clientFrame(.text, "tick"), spare: &spare) == [Array("tick".utf8)])
        }
        #expect(delivered.count == 1 && delivered.first == payload)
        // The large buffer is not handed on to the loop's spare: over 64 KiB it is let go.
        #expect(large.received.capacity == 0)
    }

    @Test("Pipelined frames in one read are delivered in order, and the buffers go back after")
    func pipelinedFramesInOneRead() {
        var spare = WebSocketStateMachine.InputBuffers()
        var machine = WebSocketStateMachine(role: .server)
        let read1 = clientFrame(.text, "one") + clientFrame(.ping, "p") + clientFrame(.text, "two") + clientFrame(.binary, [1, 2, 3])
        #expect(read(&machine, read1, spare: &spare) == [Array("one".utf8), Array("two".utf8), [1, 2, 3]])
        #expect(machine.isBetweenMessages && machine.actions.capacity == 0)
        // Pipelined with the start of a fourth message: the three complete ones are delivered, the rest waits.
        let fourth = clientFrame(.text, "four")
        let read2 = clientFrame(.text, "x") + clientFrame(.text, "y") + clientFrame(.text, "z") + fourth[..<3]
        #expect(read(&machine, read2, spare: &spare) == [Array("x".utf8), Array("y".utf8), Array("z".utf8)])
        #expect(!machine.isBetweenMessages)
        #expect(read(&machine, Array(fourth[3...]), spare: &spare) == [Array("four".utf8)])
    }

    @Test("A fragmented message keeps its reassembly buffer between reads, other machines notwithstanding")
    func fragmentedMessageAcrossReads() {
        var spare = WebSocketStateMachine.InputBuffers()
        var machine = WebSocketStateMachine(role: .server)
        var other = WebSocketStateMachine(role: .server)
        #expect(read(&machine, clientFrame(.text, "frag", fin: false), spare: &spare) == [])
        #expect(!machine.isBetweenMessages)
        #expect(read(&other, clientFrame(.text, "other"), spare: &spare) == [Array("other".utf8)])
        #expect(read(&machine, clientFrame(.continuation, "ment", fin: false), spare: &spare) == [])
        #expect(read(&machine, clientFrame(.continuation, "ed", fin: true), spare: &spare) == [Array("fragmented".utf8)])
        #expect(machine.isBetweenMessages)
    }
}
