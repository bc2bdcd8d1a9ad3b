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
        defer { iovecs.deallocate() }
        let (count, bytes) = queue.fill(iovecs, capacity: iovecCapacity, maxBytes: maxBytes)
        var result: [UInt8] = []
        for index in 0..<count {
            result += UnsafeRawBufferPointer(start: iovecs[index].iov_base, count: iovecs[index].iov_len)
        }
        #expect(result.count == bytes)
        return result
    }

    @Test("E7: small owned writes coalesce into one iovec; shared frames are referenced, not copied")
    func coalescesOwnedAndReferencesShared() {
        var queue = WriteQueue()
        [UInt8]("ab".utf8).withUnsafeBytes { queue.append($0) }
        [UInt8]("cd".utf8).withUnsafeBytes { queue.append($0) }
        let frame = SharedBytes(Array("FRAME".utf8))
        queue.append(frame)
        let iovecs = UnsafeMutablePointer<iovec>.allocate(capacity: 8)
        defer { iovecs.deallocate() }
        let (count, bytes) = queue.fill(iovecs, capacity: 8, maxBytes: .max)
        #expect(count == 2)
        #expect(bytes == 9)
        #expect(UnsafeRawPointer(iovecs[1].iov_base) == frame.base)  // the frame's own memory
        #expect(gathered(queue) == Array("abcdFRAME".utf8))
    }

    @Test("E7: partial sends advance one offset across chunk boundaries; byte and iovec caps hold")
    func randomisedAgainstModel() {
        var generator = SeededGenerator(seed: 0x4845_5241_4C44)
        for _ in 0..<50 {
            var queue = WriteQueue()
            var model: [UInt8] = []
            var next: UInt8 = 1
            for _ in 0..<60 {
                switch Int.random(in: 0..<4, using: &generator) {
                case 0, 1:
                    let size = Int.random(in: 0...20_000, using: &generator)
                    let first = next
                    let bytes = [UInt8](unsafeUninitializedCapacity: size) { buffer, initialized in
                        for index in 0..<size { buffer[index] = first &+ UInt8(truncatingIfNeeded: index) }
                        initialized = size
                    }
                    next = first &+ UInt8(truncatingIfNeeded: size)
                    if Bool.random(using: &generator) {
                        bytes.withUnsafeBytes { queue.append($0) }
                    } else {
                        queue.append(SharedBytes(bytes))
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
                }
                #expect(queue.count == model.count)
            }
            #expect(gathered(queue) == model)
        }
    }
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
