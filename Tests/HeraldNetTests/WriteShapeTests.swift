import Testing

@testable import HeraldNet

/// Write path: which system call a pass's write of one connection's queue becomes.
@Suite("Write shape")
struct WriteShapeTests {
    let capacity = 64 << 10

    @Test("One piece is sent as it is")
    func single() {
        #expect(WriteShape.of(pieces: 1, bytes: 10, gatherCapacity: capacity) == .single)
        #expect(WriteShape.of(pieces: 1, bytes: 1 << 20, gatherCapacity: capacity) == .single)
    }

    @Test("Small pieces are gathered up to the buffer's size: a busy receiver's 67 frames of 300 bytes, or /sync heads and bodies")
    func smallPiecesGathered() {
        #expect(WriteShape.of(pieces: 67, bytes: 67 * 306, gatherCapacity: capacity) == .gathered)
        #expect(WriteShape.of(pieces: 64, bytes: 32 * (12 + 330), gatherCapacity: capacity) == .gathered)
        #expect(WriteShape.of(pieces: 256, bytes: 256 * 256, gatherCapacity: capacity) == .gathered)
        #expect(WriteShape.of(pieces: 256, bytes: 256 * 256 + 1, gatherCapacity: capacity) == .scattered)
    }

    @Test("Large pieces go to sendmsg where they are: copying them first would only add a copy")
    func largePiecesScattered() {
        #expect(WriteShape.of(pieces: 2, bytes: 2 * 8_000, gatherCapacity: capacity) == .scattered)
        #expect(WriteShape.of(pieces: 16, bytes: 16 * 4_000, gatherCapacity: capacity) == .scattered)
        #expect(WriteShape.of(pieces: 2, bytes: 2 * 1_024, gatherCapacity: capacity) == .gathered)
        #expect(WriteShape.of(pieces: 2, bytes: 2 * 1_024 + 1, gatherCapacity: capacity) == .scattered)
    }
}
