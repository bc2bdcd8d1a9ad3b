import Glibc
import HeraldBytes
import Testing

@testable import HeraldNet

/// The write queue against a model (a plain byte array): whatever mix of owned writes, shared frames
/// and partial sends, the bytes gathered for the kernel are exactly the unsent suffix, in order.
@Suite("WriteQueue")
struct WriteQueueTests {
    /// What `fill` would hand to sendmsg, as bytes.
    private func gathered(_ queue: WriteQueue, iovecCapacity: Int = 64, maxBytes: Int = .max) -> [UInt8] {
        let iovecs = UnsafeMutablePointer<iovec>.allocate(capacity: iovecCapacity)
        let scratch = UnsafeMutableRawPointer.allocate(
            byteCount: WriteQueue.inlineScratchSize(capacity: iovecCapacity), alignment: 8)
        defer {
            iovecs.deallocate()
            scratch.deallocate()
        }
        let (count, bytes) = queue.fill(iovecs, capacity: iovecCapacity, maxBytes: maxBytes, inlineScratch: scratch)
        var result: [UInt8] = []
        for index in 0..<count {
            result += UnsafeRawBufferPointer(start: iovecs[index].iov_base, count: iovecs[index].iov_len)
        }
        #expect(result.count == bytes)
        return result
    }

    @Test("Write path: small owned writes coalesce into one iovec; shared frames are referenced, not copied")
    func coalescesOwnedAndReferencesShared() {
        var queue = WriteQueue()
        [UInt8]("ab".utf8).withUnsafeBytes { queue.append($0) }
        [UInt8]("cd".utf8).withUnsafeBytes { queue.append($0) }
        let frame = SharedBytes(Array("FRAME".utf8))
        queue.append(frame)
        let iovecs = UnsafeMutablePointer<iovec>.allocate(capacity: 8)
        defer { iovecs.deallocate() }
        let (count, bytes) = queue.fill(iovecs, capacity: 8, maxBytes: .max, inlineScratch: noInlineChunks)
        #expect(count == 2)
        #expect(bytes == 9)
        #expect(UnsafeRawPointer(iovecs[1].iov_base) == frame.base)  // the frame's own memory
        #expect(gathered(queue) == Array("abcdFRAME".utf8))
    }

    @Test("Write path: partial sends advance one offset across chunk boundaries; byte and iovec caps hold; a header and payload queue as their bytes in order")
    func randomisedAgainstModel() {
        var generator = SeededGenerator(seed: 0x4845_5241_4C44)
        for _ in 0..<50 {
            var queue = WriteQueue()
            var model: [UInt8] = []
            var pins: [Weak<LoopPinnedFrame>] = []
            var next: UInt8 = 1
            for _ in 0..<60 {
                switch Int.random(in: 0..<4, using: &generator) {
                case 0, 1:
                    let small = Bool.random(using: &generator)
                    let size = Int.random(in: 0...(small ? InlineBytes.capacity + 2 : 20_000), using: &generator)
                    let first = next
                    let bytes = [UInt8](unsafeUninitializedCapacity: size) { buffer, initialized in
                        for index in 0..<size { buffer[index] = first &+ UInt8(truncatingIfNeeded: index) }
                        initialized = size
                    }
                    next = first &+ UInt8(truncatingIfNeeded: size)
                    switch Int.random(in: 0..<4, using: &generator) {
                    case 0:
                        // One buffer, or the same bytes as a frame's header and payload appended in one step (an
                        // echo), split anywhere: across the end of a block too.
                        let split = Int.random(in: 0...size, using: &generator)
                        let asHeadAndPayload = Bool.random(using: &generator)
                        bytes.withUnsafeBytes { all in
                            guard asHeadAndPayload else { return queue.append(all) }
                            queue.append(head: UnsafeRawBufferPointer(rebasing: all[..<split]),
                                         payload: UnsafeRawBufferPointer(rebasing: all[split...]))
                        }
                    case 1 where small:
                        // Kept in the chunk when they fit, as owned bytes when not (as the fan-out does).
                        bytes.withUnsafeBytes { bytes in
                            if let inline = InlineBytes(bytes) { queue.append(inline) } else { queue.append(bytes) }
                        }
                    case 1: queue.append(SharedBytes(bytes))
                    default:
                        let pinned = LoopPinnedFrame(SharedBytes(bytes))
                        queue.append(pinned)
                        pins.append(Weak(pinned))
                    }
                    model += bytes
                case 2:
                    let sent = Int.random(in: 0...model.count, using: &generator)
                    queue.consume(sent)
                    model.removeFirst(sent)
                default:
                    let cap = Int.random(in: 1...50_000, using: &generator)
                    let iovecCap = Int.random(in: 1...4, using: &generator)
                    let window = gathered(queue, iovecCapacity: iovecCap, maxBytes: cap)
                    #expect(window.count <= cap)
                    #expect(window == Array(model.prefix(window.count)))
                    // The gathered write straight from the chunks: all of the queue or nothing, never over capacity.
                    if let whole = wholeGathered(queue, capacity: cap) {
                        #expect(whole == model)
                        #expect(whole.count <= cap)
                    }
                }
                #expect(queue.count == model.count)
            }
            #expect(gathered(queue) == model)
            queue.removeAll()
            #expect(pins.allSatisfy { $0.object == nil }, "every pinned frame is let go once no chunk names it")
        }
    }

    /// What `gatherAll` copies, as bytes; nil when it declines the queue.
    private func wholeGathered(_ queue: WriteQueue, capacity: Int) -> [UInt8]? {
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: max(capacity, 1), alignment: 16)
        defer { buffer.deallocate() }
        guard let length = queue.gatherAll(into: buffer, capacity: capacity) else { return nil }
        return Array(UnsafeRawBufferPointer(start: buffer, count: length))
    }

    @Test("Write path: a fan-out receiver's queue (heads and pinned bodies) is gathered whole straight from its chunks, also after a send that ended inside a head; one piece, or more than fits, is left to the iovec path")
    func gathersWholeQueueFromChunks() throws {
        var queue = WriteQueue()
        let body = Array("\"body\":1}".utf8)
        let pinned = LoopPinnedFrame(SharedBytes(body))
        let first = [0x81, 0x7E] + Array("{\"seq\":1,".utf8)
        queue.append(try #require(first.withUnsafeBytes { InlineBytes($0) }))
        #expect(wholeGathered(queue, capacity: 1 << 16) == nil, "a single piece is sent where it lies")
        var expected = first
        queue.append(pinned)
        expected += body
        for seq in 2...40 {
            let head = [0x81, 0x7E] + Array("{\"seq\":\(seq),".utf8)
            queue.append(try #require(head.withUnsafeBytes { InlineBytes($0) }))
            queue.append(pinned)
            expected += head + body
        }
        let owned = Array("owned tail".utf8)
        owned.withUnsafeBytes { queue.append($0) }
        expected += owned
        #expect(wholeGathered(queue, capacity: 1 << 16) == expected)
        #expect(wholeGathered(queue, capacity: expected.count - 1) == nil, "more than fits: left to fill")
        for sent in [3, 9, 1, 25] {
            queue.consume(sent)
            expected.removeFirst(sent)
            #expect(wholeGathered(queue, capacity: 1 << 16) == expected)
        }
        queue.removeAll()
    }

    @Test("Write path: heads kept in their chunks go out in order before their bodies, also when a send ends inside one; they take no block")
    func inlineHeadsBeforePinnedBodies() throws {
        let pool = OwnedBlockPool.current
        let (small, full) = (pool.freeSmallCount, pool.freeCount)
        var queue = WriteQueue()
        let pinned = LoopPinnedFrame(SharedBytes(Array("\"body\":1}".utf8)))
        var expected: [UInt8] = []
        for seq in 1...40 {
            let head = [0x81, 0x7E] + Array("{\"seq\":\(seq),".utf8)
            queue.append(try #require(head.withUnsafeBytes { InlineBytes($0) }))
            queue.append(pinned)
            expected += head + Array("\"body\":1}".utf8)
        }
        let tooLong = [UInt8](repeating: 0x41, count: InlineBytes.capacity + 1)
        #expect(tooLong.withUnsafeBytes { InlineBytes($0) } == nil, "longer than a chunk holds: refused")
        #expect(queue.count == expected.count)
        #expect((pool.freeSmallCount, pool.freeCount) == (small, full), "no owned block was taken")
        // Sends that end inside a head, then continue from there.
        for sent in [3, 1, 11, 30] {
            let window = gathered(queue, iovecCapacity: 5)
            #expect(window == Array(expected.prefix(window.count)))
            queue.consume(sent)
            expected.removeFirst(sent)
            #expect(gathered(queue, iovecCapacity: 128) == expected)
        }
        queue.consume(expected.count)
        #expect(queue.isEmpty)
    }

    @Test("Write path: a frame pinned by the loop lives while any queue holds it and is let go with the last, whether sent or dropped")
    func pinnedFrameLifetime() {
        weak var weakPin: LoopPinnedFrame?
        weak var weakFrame: SharedBytes?
        var queues = [WriteQueue](repeating: WriteQueue(), count: 3)
        do {
            let frame = SharedBytes(Array("BODY".utf8))
            let pinned = LoopPinnedFrame(frame)
            (weakPin, weakFrame) = (pinned, frame)
            for index in queues.indices {
                [UInt8]("h\(index)".utf8).withUnsafeBytes { queues[index].append($0) }
                queues[index].append(pinned)
            }
        }
        #expect(weakPin != nil, "held by the queues alone")
        #expect(gathered(queues[0]) == Array("h0BODY".utf8))
        queues[0].consume(6)  // drained
        queues[1].consume(4)  // the head and half the frame: the frame is still named
        #expect(weakPin != nil)
        #expect(gathered(queues[1]) == Array("DY".utf8))
        queues[2].removeAll()  // the connection closed without sending
        #expect(weakPin != nil)
        queues[1].consume(2)
        #expect(weakPin == nil && weakFrame == nil, "the last chunk let the pin and its frame go")
        // Drained queues pin again from zero.
        let again = LoopPinnedFrame(SharedBytes(Array("X".utf8)))
        weakPin = again
        queues[0].append(again)
        queues[0].consume(1)
        queues[0].append(again)
        #expect(gathered(queues[0]) == Array("X".utf8))
    }

    @Test("Write path: a held pin is counted once across queues that drain one after another (a fan-out sending each receiver before queueing the next), and goes with the last of the hold and the queues")
    func heldPinSurvivesDrainedQueues() {
        weak var weakPin: LoopPinnedFrame?
        var queue = WriteQueue()
        var references: [UInt] = []
        do {
            let pinned = LoopPinnedFrame(SharedBytes(Array("BODY".utf8)))
            weakPin = pinned
            pinned.beginHold()
            for _ in 0..<3 {
                queue.append(pinned)
                references.append(_getRetainCount(pinned))
                queue.consume(4)  // sent whole: the queue names it no more
                references.append(_getRetainCount(pinned))
            }
            queue.append(pinned)
        }
        #expect(Set(references).count == 1, "no reference taken or given back per receiver: \(references)")
        #expect(weakPin != nil, "the hold and the queue keep it")
        weakPin?.endHold()
        #expect(weakPin != nil, "the queue still names it")
        queue.consume(4)
        #expect(weakPin == nil, "the last of them let it go")
    }
}

/// `fill`'s scratch for queues that hold no bytes in chunks (``InlineBytes``): never written, and any write would fault.
var noInlineChunks: UnsafeMutableRawPointer { UnsafeMutableRawPointer(bitPattern: 0x8)! }

/// A reference that does not keep its object alive.
struct Weak<Object: AnyObject> {
    weak var object: Object?
    init(_ object: Object) { self.object = object }
}

/// SplitMix64: reproducible randomness for the model test.
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var value = state
        value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
        value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
        return value ^ (value >> 31)
    }
}
