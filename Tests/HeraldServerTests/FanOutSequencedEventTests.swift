import Foundation
import HeraldBytes
import HeraldDeflate
import HeraldNet
import HeraldProtocol
import HeraldTestSupport
import HeraldWebSocket
import Logging
import Testing

@testable import HeraldServer

/// A /sync stream event fans out as a per-user head (WebSocket header + `{"seq":N,`) and ONE shared body: every
/// receiver must still get exactly the frame that `EventFrame.withSequence` + a whole-frame encoding gave before.
@Suite("Fan-out of sequenced events (RFC 6455 §5.2)")
struct FanOutSequencedEventTests {
    /// An event whose JSON body (without seq) is about `textBytes` long.
    static func eventBody(textBytes: Int) -> [UInt8] {
        var event = EventFrame(event: .message)
        event.conversationId = "c1"
        event.messageId = String(repeating: "m", count: textBytes)
        return event.encodeBody()
    }

    /// The frame the server sent before the split: `{"seq":N,` + body, encoded whole.
    static func wholeFrame(body: [UInt8], seq: Int64) -> [UInt8] {
        var frame: [UInt8] = []
        FrameEncoder.encodeServerFrame(opcode: .text, payload: EventFrame.withSequence(body, seq: seq), into: &frame)
        return frame
    }

    @Test("RFC 6455 §5.2: head + shared body is byte for byte the whole frame, across the 7-bit, 16-bit and 64-bit length forms",
          arguments: [0, 60, 90, 100, 200, 65_400, 65_500, 65_600, 70_000])
    func headPlusBodyIsTheWholeFrame(textBytes: Int) {
        let body = Self.eventBody(textBytes: textBytes)
        for seq: Int64 in [0, 1, 9, 10, 99_999, Int64.max, Int64.min, -42] {
            let head = withUnsafeTemporaryAllocation(byteCount: SequencedEvent.maxHeadSize, alignment: 1) { buffer in
                Array(UnsafeRawBufferPointer(rebasing: buffer[..<SequencedEvent.writeHead(seq: seq, bodyCount: body.count - 1, into: buffer).count]))
            }
            #expect(head + body.dropFirst() == Self.wholeFrame(body: body, seq: seq), "text \(textBytes), seq \(seq)")
        }
    }

    @Test("writeSequencePrefix writes exactly sequencePrefix, without allocating, for any Int64")
    func prefixMatches() {
        var generator = SystemRandomNumberGenerator()
        let samples: [Int64] = [0, 1, -1, 9, 10, Int64.max, Int64.min, 1_000_000_000_000] + (0..<200).map { _ in Int64.random(in: .min ... .max, using: &generator) }
        for seq in samples {
            let written = withUnsafeTemporaryAllocation(byteCount: EventFrame.maxSequencePrefixSize, alignment: 1) { buffer in
                Array(UnsafeRawBufferPointer(rebasing: buffer[..<EventFrame.writeSequencePrefix(seq, into: buffer)]))
            }
            #expect(written == EventFrame.sequencePrefix(seq))
        }
        let short = withUnsafeTemporaryAllocation(byteCount: EventFrame.maxSequencePrefixSize - 1, alignment: 1) {
            EventFrame.writeSequencePrefix(Int64.min, into: $0)
        }
        #expect(short == 0)
    }

    @Test("R1a fan-out: several users of one event each receive their own seq and the same event, for bodies of 7-, 16- and 64-bit lengths, in call order")
    func usersReceiveTheirFrames() throws {
        let harness = try Harness(sessions: 5)
        defer { harness.stop() }
        for textBytes in [40, 1_000, 70_000] {
            let body = Self.eventBody(textBytes: textBytes)
            let shared = body.withUnsafeBytes { SharedBytes(copying: UnsafeRawBufferPointer(rebasing: $0.dropFirst())) }
            // One fan-out entry for all five sessions (split over both loops), each with its own seq; sessions 1 and 2
            // share one, like two devices of one user.
            let seqs: [Int64] = [1, 9, 9, 12_345, 9_999_999_999]
            var batch: [(message: FanOutMessage, sessions: [SessionHandle])] = []
            batch.append((.sequencedEvent(body: shared, seqs: seqs), harness.handles))
            // A whole frame after it, to everyone: order per session is call order.
            let after = Array(#"{"type":"event","event":"after"}"#.utf8)
            batch.append((.frame(OutgoingFrame.text(after)), harness.handles))
            harness.server.send(messages: batch)
            for (index, seq) in seqs.enumerated() {
                let frame = try harness.clients[index].readFrame()
                #expect(frame.fin && frame.rsv == 0 && frame.opcode == 0x1)
                #expect(frame.payload == EventFrame.withSequence(body, seq: seq))
                var expected = try JSONDecoder().decode(EventFrame.self, from: Data(body))
                expected.seq = seq
                let decoded = try JSONDecoder().decode(EventFrame.self, from: Data(frame.payload))
                #expect(decoded == expected)
                #expect(decoded.seq == seq)
                #expect(try harness.clients[index].readFrame().payload == after)
            }
        }
    }

    @Test("R1a: a sync batch (events to the same sessions, answers and small frames between them) reaches each session whole and in batch order, plain or deflated; a run of them ends where the sessions change")
    func batchKeepsOrderPerSession() throws {
        let harness = try Harness(sessions: 5, deflated: [3])
        defer { harness.stop() }
        let all = harness.handles
        var seq: [Int64] = [1, 1, 5, 7, 9]  // sessions 0 and 1 share seqs (two devices of one user)
        var batch: [(message: FanOutMessage, sessions: [SessionHandle])] = []
        var expected = [[[UInt8]]](repeating: [], count: all.count)
        func event(_ number: Int, to members: [Int]) {
            let body = Self.eventBody(textBytes: 300 + number)
            let shared = body.withUnsafeBytes { SharedBytes(copying: UnsafeRawBufferPointer(rebasing: $0.dropFirst())) }
            batch.append((.sequencedEvent(body: shared, seqs: members.map { seq[$0] }), members.map { all[$0] }))
            for member in members {
                expected[member].append(EventFrame.withSequence(body, seq: seq[member]))
                seq[member] += 1
            }
        }
        func frame(_ text: String, to members: [Int], answer: Bool = false) {
            let payload = Array(text.utf8)
            batch.append((answer ? .answer(OutgoingFrame.text(payload)) : .frame(OutgoingFrame.text(payload)), members.map { all[$0] }))
            for member in members { expected[member].append(payload) }
        }
        let everyone = Array(all.indices)
        event(1, to: everyone)
        frame(#"{"type":"response","id":1}"#, to: [0], answer: true)
        event(2, to: everyone)
        frame(#"{"type":"event","event":"typing"}"#, to: [1, 2])
        event(3, to: everyone)
        frame(#"{"type":"response","id":2}"#, to: [3], answer: true)
        event(4, to: [0, 1, 2])  // other sessions: a new run
        event(5, to: everyone)
        frame(#"{"type":"event","event":"presence"}"#, to: everyone)  // too many sessions to join a run
        event(6, to: everyone)
        var runs: [Range<Int>] = []
        var start = 0
        while start < batch.count {
            let end = FanOutBatch.endOfRun(in: batch, from: start)
            runs.append(start..<end)
            start = end
        }
        #expect(runs == [0..<6, 6..<7, 7..<8, 8..<9, 9..<10])

        harness.server.send(messages: batch)
        var compressed = [Int](repeating: 0, count: all.count)
        for (index, messages) in expected.enumerated() {
            let inflater = try PerMessageDeflate(parameters: PerMessageDeflateParameters(), role: .client)
            for (position, payload) in messages.enumerated() {
                let message = try harness.clients[index].readMessage()
                var text: [UInt8] = []
                if message.rsv & 0b100 != 0 {
                    compressed[index] += 1
                    #expect(message.payload.withUnsafeBytes { inflater.decompress($0, appendingTo: &text, limit: 1 << 20) } == nil)
                    #expect(inflater.finishMessage(appendingTo: &text, limit: 1 << 20) == nil)
                } else {
                    text = message.payload
                }
                #expect(text == payload, "session \(index), message \(position)")
            }
        }
        // The deflated session took its five events compressed (short frames go as they are); the others were plain.
        #expect(compressed[3] == 5 && compressed.enumerated().allSatisfy { $0.offset == 3 || $0.element == 0 }, "\(compressed)")
    }

    @Test("R1a: a receiver served the slow way (it has an answer in the run) between two served from the run's kept bytes does not leave its heads behind: the next receiver with its seqs gets its own")
    func keptRunBytesAfterASlowReceiver() throws {
        let harness = try Harness(sessions: 3, threads: 1)  // one loop: the three are one run, in this order
        defer { harness.stop() }
        let all = harness.handles
        // The first session first (its run's bytes are kept), the second has an answer (the slow way), the third is the
        // same user as the second on another device: the same seqs, so its heads are "not new" after the second's.
        let seqs: [[Int64]] = [[5, 6], [7, 8], [7, 8]]
        var batch: [(message: FanOutMessage, sessions: [SessionHandle])] = []
        var expected = [[[UInt8]]](repeating: [], count: all.count)
        for event in 0..<2 {
            let body = Self.eventBody(textBytes: 40 + event)
            let shared = body.withUnsafeBytes { SharedBytes(copying: UnsafeRawBufferPointer(rebasing: $0.dropFirst())) }
            batch.append((.sequencedEvent(body: shared, seqs: seqs.map { $0[event] }), all))
            for member in all.indices { expected[member].append(EventFrame.withSequence(body, seq: seqs[member][event])) }
            if event == 0 {
                let answer = Array(#"{"type":"response","id":1}"#.utf8)
                batch.append((.answer(OutgoingFrame.text(answer)), [all[1]]))
                expected[1].append(answer)
            }
        }
        #expect(FanOutBatch.endOfRun(in: batch, from: 0) == batch.count, "one run")
        harness.server.send(messages: batch)
        for (index, messages) in expected.enumerated() {
            for (position, payload) in messages.enumerated() {
                #expect(try harness.clients[index].readMessage().payload == payload, "session \(index), message \(position)")
            }
        }
    }

    /// An in-process HeraldHTTPServer (two loops unless told) with `sessions` raw clients connected to a silent route.
    final class Harness: @unchecked Sendable {
        let server: HeraldHTTPServer
        let clients: [RawWebSocketClient]
        let handles: [SessionHandle]
        private let stopped = DispatchSemaphore(value: 0)

        /// Clients whose index is in `deflated` offer permessage-deflate (RFC 7692), the others nothing.
        init(sessions count: Int, deflated: Set<Int> = [], threads: Int = 2) throws {
            var options = HeraldServerOptions()
            options.port = 0
            options.threads = threads
            var logger = Logger(label: "fanout-test")
            logger.logLevel = .warning
            server = HeraldHTTPServer(options: options, logger: logger)
            let accepted = Accepted()
            server.addWebSocketRoute("/t") { _ in
                .accept(subprotocol: nil) { session in
                    accepted.add(session.handle)
                    return SilentDelegate()
                }
            }
            try server.start()
            let server = self.server, stopped = self.stopped
            Thread.detachNewThread {
                server.runUntilShutdown()
                stopped.signal()
            }
            // One at a time, so client i is handle i.
            var clients: [RawWebSocketClient] = []
            for index in 0..<count {
                let offer = deflated.contains(index) ? [("Sec-WebSocket-Extensions", "permessage-deflate; client_no_context_takeover")] : []
                clients.append(try RawWebSocketClient.connect(port: server.boundPort, path: "/t", extraHeaders: offer))
                let deadline = Date().addingTimeInterval(5)
                while accepted.count <= index, Date() < deadline { usleep(1_000) }
            }
            self.clients = clients
            handles = accepted.all
            #expect(handles.count == count)
        }

        func stop() {
            for client in clients { client.close() }
            server.shutdown()
            stopped.wait()
        }
    }

    final class Accepted: @unchecked Sendable {
        private let lock = NSLock()
        private var handles: [SessionHandle] = []
        func add(_ handle: SessionHandle) { lock.withLock { handles.append(handle) } }
        var count: Int { lock.withLock { handles.count } }
        var all: [SessionHandle] { lock.withLock { handles } }
    }

    final class SilentDelegate: WebSocketSessionDelegate {
        var route: String { "/t" }
        func sessionDidReceiveText(_ session: WebSocketSession, _ text: UnsafeRawBufferPointer) {}
        func sessionDidReceiveBinary(_ session: WebSocketSession, _ bytes: UnsafeRawBufferPointer) {}
        func sessionDidClose(_ session: WebSocketSession) {}
    }
}
