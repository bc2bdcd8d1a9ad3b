import HeraldProtocol
import HeraldTestSupport
import Testing

@testable import HeraldServer

/// A receiver's run built in one buffer that is kept from receiver to receiver (only heads that changed are copied):
/// whatever the order of seqs, digit counts and forgotten receivers, each receiver's bytes are exactly its frames.
@Suite("Fan-out: a run's bytes kept from one receiver to the next (RFC 6455 §5.2)")
struct FanOutRunBytesTests {
    /// Each receiver's frames, written whole: head (header + `{"seq":N,`) and body per event.
    private static func frames(seqs: [Int64], bodies: [[UInt8]]) -> [UInt8] {
        var out: [UInt8] = []
        for (seq, body) in zip(seqs, bodies) {
            out += withUnsafeTemporaryAllocation(byteCount: SequencedEvent.maxHeadSize, alignment: 1) { buffer in
                Array(UnsafeRawBufferPointer(rebasing: buffer[..<SequencedEvent.writeHead(seq: seq, bodyCount: body.count, into: buffer).count]))
            }
            out += body
        }
        return out
    }

    @Test("R1a: 2,000 receivers with seqs that repeat, step over a digit or jump, some forgotten between: each gets exactly its own frames",
          arguments: [1, 2, 3])
    func eachReceiverGetsItsFrames(seed: UInt64) {
        var random = SeededGenerator(seed: seed)
        let bodies: [[UInt8]] = (0..<12).map { event in
            (0..<[0, 5, 90, 130, 300, 70_000][Int(random.next() % 6)]).map { UInt8(truncatingIfNeeded: $0 &+ event) }
        }
        let headBuffer = UnsafeMutableRawBufferPointer.allocate(byteCount: SequencedEvent.maxHeadSize * bodies.count, alignment: 1)
        defer { headBuffer.deallocate() }
        var heads = bodies.indices.map { event in
            SequencedHead(place: UnsafeMutableRawBufferPointer(rebasing: headBuffer[(event * SequencedEvent.maxHeadSize)..<((event + 1) * SequencedEvent.maxHeadSize)]))
        }
        let runBuffer = UnsafeMutableRawBufferPointer.allocate(byteCount: FanOutRunBytes.capacity(bodyCounts: bodies.map(\.count)), alignment: 8)
        defer { runBuffer.deallocate() }
        var run = FanOutRunBytes(buffer: runBuffer, events: bodies.count)
        var seqs: [Int64] = bodies.indices.map { Int64($0) + 5 }
        var mismatches = 0
        for _ in 0..<2_000 {
            switch random.next() % 10 {
            case 0: break  // the same seqs as the last receiver (another device of the same user)
            case 1: seqs = seqs.map { $0 &* 10 &+ Int64(random.next() % 10) }  // one digit more each (any Int64 is a seq here)
            case 2: seqs[Int(random.next() % UInt64(seqs.count))] = Int64(bitPattern: random.next())  // any length
            case 3: run.forget()
            default: seqs = seqs.map { $0 &+ Int64(random.next() % 3) }  // near the last, sometimes across 9 -> 10
            }
            run.begin()
            for (event, body) in bodies.enumerated() {
                let isNew = heads[event].make(seq: seqs[event], bodyCount: body.count)
                body.withUnsafeBytes { run.place(event: event, head: heads[event].bytes, isNew: isNew, body: $0) }
            }
            if Array(run.finish()) != Self.frames(seqs: seqs, bodies: bodies) { mismatches += 1 }
        }
        #expect(mismatches == 0)
    }
}
