import Glibc
import HeraldBytes
import Testing

@testable import HeraldNet

/// Idle connections hold no output block: a drained block goes back to the thread's pool and the next write of any
/// connection on that thread reuses it (10k idle connections ≤ 2 KiB each, BENCHMARKS.md).
@Suite("WriteQueue block pool")
struct WriteQueuePoolTests {
    private func firstIovecBase(_ queue: WriteQueue) -> UnsafeMutableRawPointer? {
        var vector = iovec()
        let (count, _) = queue.fill(&vector, capacity: 1, maxBytes: .max, inlineScratch: noInlineChunks)
        return count == 1 ? vector.iov_base : nil
    }

    @Test("A drained queue keeps no block; another queue on the same thread gets the same block back")
    func drainedBlockIsShared() throws {
        let response = [UInt8](repeating: 0x48, count: 129)  // about the size of a 101 response
        var first = WriteQueue()
        response.withUnsafeBytes { first.append($0) }
        let block = try #require(firstIovecBase(first))
        first.consume(response.count)
        #expect(first.isEmpty)
        var second = WriteQueue()
        response.withUnsafeBytes { second.append($0) }
        #expect(firstIovecBase(second) == block)
        // A queue dropped without flushing (closed connection) also returns its block.
        second.removeAll()
        var third = WriteQueue()
        [UInt8]("x".utf8).withUnsafeBytes { third.append($0) }
        #expect(firstIovecBase(third) == block)
        third.consume(1)
    }

    @Test("A write larger than a block gets its own block, which is freed, not pooled")
    func largeWritesAreNotPooled() throws {
        let pool = OwnedBlockPool.current
        let big = [UInt8](repeating: 7, count: WriteQueue.blockSize + 1)
        var queue = WriteQueue()
        big.withUnsafeBytes { queue.append($0) }
        let pooled = pool.freeCount
        queue.consume(big.count)
        #expect(pool.freeCount == pooled)
    }

    @Test("Write path: small heads between shared bodies fill ONE block (a slice each); the block returns to the pool after its last slice")
    func headsBetweenSharedFramesShareABlock() throws {
        let pool = OwnedBlockPool.current
        var queue = WriteQueue()
        let body = SharedBytes(Array("BODY".utf8))
        var expected: [UInt8] = []
        for index in 0..<100 {
            let head = Array("h\(index):".utf8)
            head.withUnsafeBytes { queue.append($0) }
            queue.append(body)
            expected += head + Array("BODY".utf8)
        }
        let iovecs = UnsafeMutablePointer<iovec>.allocate(capacity: 256)
        defer { iovecs.deallocate() }
        let (count, bytes) = queue.fill(iovecs, capacity: 256, maxBytes: .max, inlineScratch: noInlineChunks)
        #expect(count == 200 && bytes == expected.count)
        var gathered: [UInt8] = []
        for index in 0..<count { gathered += UnsafeRawBufferPointer(start: iovecs[index].iov_base, count: iovecs[index].iov_len) }
        #expect(gathered == expected)
        // Every head lies in the first head's block, one after another.
        let first = try #require(iovecs[0].iov_base)
        var offset = 0
        for index in stride(from: 0, to: count, by: 2) {
            #expect(iovecs[index].iov_base == first + offset)
            offset += iovecs[index].iov_len
        }
        #expect(UnsafeRawPointer(iovecs[1].iov_base) == body.base)
        let pooled = pool.freeSmallCount
        queue.consume(expected.count - 1)  // all but the last body byte: the block is released with the last head
        #expect(pool.freeSmallCount == pooled + 1)
        queue.consume(1)
        #expect(queue.isEmpty && pool.freeSmallCount == pooled + 1)
    }

    @Test("A queue's first small write takes a small block; what outgrows it continues in a full block, in order")
    func firstSmallWriteTakesASmallBlock() throws {
        let pool = OwnedBlockPool.current
        var queue = WriteQueue()
        let response = [UInt8](repeating: 0x48, count: 129)
        response.withUnsafeBytes { queue.append($0) }
        let filler = [UInt8](repeating: 0x2E, count: WriteQueue.smallBlockSize)  // fills the small block, then spills
        filler.withUnsafeBytes { queue.append($0) }
        let iovecs = UnsafeMutablePointer<iovec>.allocate(capacity: 8)
        defer { iovecs.deallocate() }
        let (count, bytes) = queue.fill(iovecs, capacity: 8, maxBytes: .max, inlineScratch: noInlineChunks)
        #expect(count == 2 && bytes == response.count + filler.count)
        #expect(iovecs[0].iov_len == WriteQueue.smallBlockSize)
        var gathered: [UInt8] = []
        for index in 0..<count { gathered += UnsafeRawBufferPointer(start: iovecs[index].iov_base, count: iovecs[index].iov_len) }
        #expect(gathered == response + filler)
        let (small, full) = (pool.freeSmallCount, pool.freeCount)
        queue.consume(bytes)
        #expect(pool.freeSmallCount == small + 1 && pool.freeCount == full + 1)
    }

    @Test("An empty queue lets its chunk list go (the sweep's call); a queue with bytes keeps it")
    func emptyQueueReleasesItsStorage() {
        var queue = WriteQueue()
        [UInt8]("abc".utf8).withUnsafeBytes { queue.append($0) }
        queue.releaseStorageIfEmpty()
        #expect(queue.count == 3)
        queue.consume(1)
        queue.releaseStorageIfEmpty()
        var vector = iovec()
        #expect(queue.fill(&vector, capacity: 1, maxBytes: .max, inlineScratch: noInlineChunks).byteCount == 2)
        queue.consume(2)
        queue.releaseStorageIfEmpty()
        #expect(queue.isEmpty && queue.chunkCapacity == 0)
        [UInt8]("d".utf8).withUnsafeBytes { queue.append($0) }
        #expect(queue.fill(&vector, capacity: 1, maxBytes: .max, inlineScratch: noInlineChunks).byteCount == 1)
        queue.consume(1)
    }

    @Test("A fan-out pass drains a queue of 64 chunks (heads and shared bodies): its list keeps room for the next pass; a larger burst's does not stay")
    func drainedListKeepsItsRoomUpToALimit() {
        let body = SharedBytes(copying: UnsafeRawBufferPointer(start: [UInt8](repeating: 0x42, count: 100), count: 100))
        func pass(_ frames: Int, into queue: inout WriteQueue) {
            for seq in 0..<frames {
                [UInt8]("{\"seq\":\(seq),".utf8).withUnsafeBytes { queue.append($0) }
                queue.append(body)
            }
            queue.consume(queue.count)
        }
        var queue = WriteQueue()
        pass(32, into: &queue)
        let room = queue.chunkCapacity
        #expect(queue.isEmpty && room >= 64, "the drained list keeps its slots")
        pass(32, into: &queue)
        #expect(queue.chunkCapacity == room, "the next pass needs no new list")
        pass(WriteQueue.keptChunkCapacity, into: &queue)
        #expect(queue.isEmpty && queue.chunkCapacity == 0, "a burst past the limit leaves no large list behind")
    }
}
