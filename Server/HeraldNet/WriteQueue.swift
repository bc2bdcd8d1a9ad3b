import CLinux
import Glibc
import HeraldBytes

/// A connection's own output bytes: a fixed-capacity heap block that small writes are appended to,
/// so many tiny writes become one iovec and one allocation instead of one each.
final class OwnedBlock {
    let base: UnsafeMutableRawPointer
    let capacity: Int
    var count = 0

    init(capacity: Int) {
        self.base = UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: 16)
        self.capacity = capacity
    }

    deinit { base.deallocate() }
}

/// Up to ``capacity`` bytes kept in a chunk itself: a fan-out receiver's own small head (a /sync event's WebSocket
/// header and `{"seq":N,`) in front of a body all receivers share.
///
/// perf of a /sync fan-out to 1,000: queueing each head in an owned block cost ~9% of the server's CPU, nearly all of
/// it the first touch of each receiver's cold block (its reference count and fill mark). Kept in the chunk, the head
/// is written where the body's chunk goes anyway: no block, no reference counted, no cache line of its own. 24 bytes
/// keep a chunk at the 32-byte stride the other cases have.
public struct InlineBytes {
    public static let capacity = 24

    private var storage: (UInt64, UInt64, UInt64) = (0, 0, 0)
    private let length: UInt8

    /// Nil when `bytes` does not fit. Made once per distinct head: a fan-out's receivers with the same seq share it.
    public init?(_ bytes: UnsafeRawBufferPointer) {
        guard bytes.count <= Self.capacity else { return nil }
        length = UInt8(bytes.count)
        withUnsafeMutableBytes(of: &storage) { $0.copyMemory(from: bytes) }
    }

    var count: Int { Int(length) }

    /// Copies the bytes from `offset` on, at most `maxBytes` of them, to `destination`; returns how many.
    func copy(from offset: Int, maxBytes: Int, to destination: UnsafeMutableRawPointer) -> Int {
        let taken = min(count - offset, maxBytes)
        withUnsafeBytes(of: storage) { destination.copyMemory(from: $0.baseAddress! + offset, byteCount: taken) }
        return taken
    }
}

/// One queued piece of output: bytes the connection owns, a reference to a shared frame, a shared frame pinned by
/// this loop (named without a reference count; see ``LoopPinnedFrame``), with its bytes' place kept in the chunk, or
/// a few bytes kept in the chunk itself.
///
/// Owned bytes are a slice of a block, so several small owned pieces separated by shared frames fill ONE block instead
/// of taking a block each.
enum OutputChunk {
    case owned(OwnedBlock, start: Int, end: Int)
    case shared(SharedBytes)
    case pinned(Unmanaged<LoopPinnedFrame>, base: UnsafeRawPointer, count: Int)
    case inline(InlineBytes)

    var count: Int {
        switch self {
        case .owned(_, let start, let end): end - start
        case .shared(let frame): frame.count
        case .pinned(_, _, let count): count
        case .inline(let bytes): bytes.count
        }
    }
}

/// Borrowed bytes on their way into owned blocks: one buffer, or a frame's header and payload read as one.
private struct OwnedBytes: ~Copyable {
    private var first: UnsafeRawBufferPointer
    private var second: UnsafeRawBufferPointer

    init(_ first: UnsafeRawBufferPointer, _ second: UnsafeRawBufferPointer) {
        (self.first, self.second) = (first, second)
    }

    var count: Int { first.count + second.count }

    /// Copies the next `byteCount` bytes to `destination` (at most ``count``), and moves past them.
    mutating func copy(_ byteCount: Int, to destination: UnsafeMutableRawPointer) {
        let fromFirst = min(byteCount, first.count)
        if fromFirst > 0 {
            destination.copyMemory(from: first.baseAddress!, byteCount: fromFirst)
            first = UnsafeRawBufferPointer(rebasing: first[fromFirst...])
        }
        let fromSecond = byteCount - fromFirst
        if fromSecond > 0 {
            (destination + fromFirst).copyMemory(from: second.baseAddress!, byteCount: fromSecond)
            second = UnsafeRawBufferPointer(rebasing: second[fromSecond...])
        }
    }
}

/// A connection's pending output: a FIFO of chunks plus ONE offset into the first chunk.
///
/// `fill` gathers the chunks into an iovec array for a single `sendmsg`; `consume` advances by what
/// the kernel took, however it splits across chunks. Loop-confined, never shared.
struct WriteQueue {
    /// Size of a new owned block; writes larger than this get a block of their own size.
    static let blockSize = 16 * 1024
    /// Size of the block a queue's first small write goes into. Most queues see one small write and drain (a 101
    /// response, one fan-out head, a pong): 1 KiB for them instead of 16 KiB keeps a connect storm's blocks in flight,
    /// and the pool they return to, small. A queue that outgrows it continues in blocks of ``blockSize``.
    static let smallBlockSize = 1024
    /// Most chunk slots a drained queue keeps for its next writes. A fan-out queues a receiver one chunk per frame
    /// (two for a /sync event: its head and the shared body), 32 to 64 per loop pass at 32 messages in flight: a
    /// list dropped at every drain grew again from one slot, five allocations a pass per receiver (perf of a raw
    /// fan-out to 1,000: a tenth of the loop thread). 4 KiB at most per busy connection; the sweep lets an idle
    /// connection's list go (``releaseStorageIfEmpty()``).
    static let keptChunkCapacity = 128

    private var chunks = ContiguousArray<OutputChunk>()
    /// Index of the first chunk not fully sent; chunks before it are dead and compacted lazily.
    private var head = 0
    /// Bytes of `chunks[head]` already sent.
    private var headOffset = 0
    /// Unsent bytes in the queue.
    private(set) var count = 0

    var isEmpty: Bool { count == 0 }
    /// Chunks not yet fully sent.
    var pieceCount: Int { chunks.count - head }
    /// Chunks the list has room for without growing (0 once its storage is let go).
    var chunkCapacity: Int { chunks.capacity }

    /// Copies `bytes` into owned blocks, filling the newest block before starting a new one: the last chunk grows,
    /// or, when the last chunk is a shared frame that follows the newest owned slice, a new slice of the same block
    /// starts after it (head, shared body, head, shared body... share one block).
    mutating func append(_ bytes: UnsafeRawBufferPointer) {
        append(OwnedBytes(bytes, UnsafeRawBufferPointer(start: nil, count: 0)))
    }

    /// Copies `head` and then `payload` as `append(_:)` copies one buffer: an echoed frame's header (written on the
    /// stack) and its payload go into one block in one step, with one look for room and one block taken.
    mutating func append(head: UnsafeRawBufferPointer, payload: UnsafeRawBufferPointer) {
        append(OwnedBytes(head, payload))
    }

    private mutating func append(_ source: consuming OwnedBytes) {
        var remaining = source.count
        guard remaining > 0 else { return }
        let wasEmpty = count == 0
        count += remaining
        if let (index, block) = openTailSlice(), block.count < block.capacity {
            let start = block.count
            let taken = min(remaining, block.capacity - block.count)
            source.copy(taken, to: block.base + block.count)
            block.count += taken
            remaining -= taken
            if index == chunks.count - 1, case .owned(_, let sliceStart, _) = chunks[index] {
                chunks[index] = .owned(block, start: sliceStart, end: block.count)
            } else {
                chunks.append(.owned(block, start: start, end: block.count))
            }
        }
        guard remaining > 0 else { return }
        // A drained block of this loop (OwnedBlockPool), so a request/response connection allocates no blocks and an
        // idle one holds none.
        let block: OwnedBlock
        if wasEmpty && remaining <= Self.smallBlockSize {
            block = OwnedBlockPool.withCurrent { $0.takeSmall() } ?? OwnedBlock(capacity: Self.smallBlockSize)
        } else if remaining <= Self.blockSize {
            block = OwnedBlockPool.withCurrent { $0.take() } ?? OwnedBlock(capacity: Self.blockSize)
        } else {
            block = OwnedBlock(capacity: remaining)
        }
        source.copy(remaining, to: block.base)
        block.count = remaining
        chunks.append(.owned(consume block, start: 0, end: remaining))  // the pool's reference, moved: none counted
    }

    /// The newest owned slice whose block may take more bytes right after it without reordering output: the last
    /// chunk, or the one before a last shared chunk; its slice must end at the block's fill mark.
    private func openTailSlice() -> (index: Int, block: OwnedBlock)? {
        for index in stride(from: chunks.count - 1, through: max(head, chunks.count - 2), by: -1) {
            if case .owned(let block, _, let end) = chunks[index] { return end == block.count ? (index, block) : nil }
        }
        return nil
    }

    /// Queues a reference to `frame`; no bytes are copied.
    mutating func append(_ frame: SharedBytes) {
        guard frame.count > 0 else { return }
        count += frame.count
        chunks.append(.shared(frame))
    }

    /// Queues `bytes` in a chunk of their own (``InlineBytes``).
    mutating func append(_ bytes: InlineBytes) {
        guard bytes.count > 0 else { return }
        count += bytes.count
        chunks.append(.inline(bytes))
    }

    /// Queues `pinned`'s frame, counted by the loop instead of by reference; no bytes are copied.
    mutating func append(_ pinned: LoopPinnedFrame) {
        guard pinned.count > 0 else { return }
        count += pinned.count
        chunks.append(.pinned(pinned.pin(), base: pinned.base, count: pinned.count))
    }

    /// Bytes ``fill(_:capacity:maxBytes:inlineScratch:)`` needs at `inlineScratch` for `capacity` iovecs.
    static func inlineScratchSize(capacity: Int) -> Int { capacity * InlineBytes.capacity }

    /// Writes up to `capacity` iovecs covering at most `maxBytes` unsent bytes, in order. Bytes kept in chunks
    /// (``InlineBytes``) are copied to `inlineScratch` (``inlineScratchSize(capacity:)`` bytes), which the iovecs then
    /// name: it must stay untouched until they are sent.
    /// - Returns: the number of iovecs filled and the bytes they cover.
    func fill(
        _ iovecs: UnsafeMutablePointer<iovec>, capacity: Int, maxBytes: Int, inlineScratch: UnsafeMutableRawPointer
    ) -> (iovecCount: Int, byteCount: Int) {
        var filled = 0
        var bytes = 0
        var index = head
        var offset = headOffset
        while index < chunks.count, filled < capacity, bytes < maxBytes {
            let base: UnsafeRawPointer
            let length: Int
            switch chunks[index] {
            case .owned(let block, let start, let end):
                (base, length) = (UnsafeRawPointer(block.base + start + offset), min(end - start - offset, maxBytes - bytes))
            case .shared(let frame):
                (base, length) = (frame.base + offset, min(frame.count - offset, maxBytes - bytes))
            case .pinned(_, let frameBase, let count):
                (base, length) = (frameBase + offset, min(count - offset, maxBytes - bytes))
            case .inline(let inline):
                let place = inlineScratch + filled * InlineBytes.capacity
                (base, length) = (UnsafeRawPointer(place), inline.copy(from: offset, maxBytes: maxBytes - bytes, to: place))
            }
            iovecs[filled] = iovec(iov_base: UnsafeMutableRawPointer(mutating: base), iov_len: length)
            filled += 1
            bytes += length
            index += 1
            offset = 0
        }
        return (filled, bytes)
    }

    /// Copies every unsent byte, in order, to `destination` when ``WriteShape`` would gather the whole queue (several
    /// small pieces, `capacity` bytes at most): the gathered write straight from the chunks, without iovecs filled and
    /// read back first (a fan-out receiver's usual write). Nil, copying nothing, for any other queue.
    func gatherAll(into destination: UnsafeMutableRawPointer, capacity: Int) -> Int? {
        let pieces = pieceCount
        guard pieces > 1, WriteShape.of(pieces: pieces, bytes: count, gatherCapacity: capacity) == .gathered else { return nil }
        var length = 0
        var offset = headOffset
        for index in head..<chunks.count {
            let base: UnsafeRawPointer
            let pieceLength: Int
            switch chunks[index] {
            case .owned(let block, let start, let end):
                (base, pieceLength) = (UnsafeRawPointer(block.base + start + offset), end - start - offset)
            case .shared(let frame):
                (base, pieceLength) = (frame.base + offset, frame.count - offset)
            case .pinned(_, let frameBase, let frameCount):
                (base, pieceLength) = (frameBase + offset, frameCount - offset)
            case .inline(let inline):
                length += inline.copy(from: offset, maxBytes: inline.count, to: destination + length)
                offset = 0
                continue
            }
            (destination + length).copyMemory(from: base, byteCount: pieceLength)
            length += pieceLength
            offset = 0
        }
        return length
    }

    /// Drops the first `sent` bytes (what the kernel accepted), releasing chunks that are done.
    mutating func consume(_ sent: Int) {
        var remaining = sent
        count -= sent
        if count == 0 {
            // Drained (the common case): the live chunks leave the list from its end, each owned block going back to
            // the pool with its last slice to leave (no placeholder written into a slot first); the dead prefix goes
            // with the list, whose slots are kept for the next writes up to ``keptChunkCapacity``.
            while chunks.count > head {
                // Taken straight from the list (no copy kept): the block must be unique for the pool to take it.
                switch chunks.removeLast() {
                case .owned(let block, _, _): giveBack(block)
                case .pinned(let pinned, _, _): LoopPinnedFrame.unpin(pinned)
                case .shared, .inline: break
                }
            }
            if chunks.capacity > Self.keptChunkCapacity {
                chunks = []
            } else if !chunks.isEmpty {
                chunks.removeAll(keepingCapacity: true)
            }
            head = 0
            headOffset = 0
            return
        }
        while remaining > 0, head < chunks.count {
            let available = chunks[head].count - headOffset
            if remaining < available {
                headOffset += remaining
                return
            }
            remaining -= available
            release(chunkAt: head)
            head += 1
            headOffset = 0
        }
        if head >= 64, head * 2 >= chunks.count {
            // Compact only when the dead prefix dominates, so removal stays amortised O(1).
            chunks.removeFirst(head)
            head = 0
        }
    }

    /// Lets an empty queue's chunk list go (capacity included), so an idle connection holds no queue storage; the next
    /// write allocates a new list. Called from the loop's sweep, at most once a tick per connection, never per write.
    mutating func releaseStorageIfEmpty() {
        guard count == 0, chunks.capacity > 0 else { return }
        chunks = []
        head = 0
        headOffset = 0
    }

    /// Drops everything (the connection closed without flushing).
    mutating func removeAll() {
        for index in head..<chunks.count { release(chunkAt: index) }
        chunks.removeAll()
        head = 0
        headOffset = 0
        count = 0
    }

    /// Lets the chunk at `index` go; its slot stays (dead) until the list is compacted. Only the cases that hold a
    /// reference need their slot overwritten: a dead slot is never released again.
    private mutating func release(chunkAt index: Int) {
        switch chunks[index] {
        case .inline:
            break
        case .pinned(let pinned, _, _):
            LoopPinnedFrame.unpin(pinned)
        case .shared:
            chunks[index] = .shared(WriteQueue.emptyFrame)
        case .owned(let block, _, _):
            chunks[index] = .shared(WriteQueue.emptyFrame)  // drop our reference so `block` may be unique again
            giveBack(block)
        }
    }

    /// Hands a block whose slice is done back to the loop's pool, unless a later slice of it is still queued (the
    /// last slice to go hands it back) or it is not of a pooled size.
    private func giveBack(_ block: consuming OwnedBlock) {
        var block = block
        guard block.capacity == Self.blockSize || block.capacity == Self.smallBlockSize,
              isKnownUniquelyReferenced(&block) else { return }
        var slot: OwnedBlock? = consume block
        OwnedBlockPool.withCurrent { $0.give(&slot) }
    }

    /// Placeholder stored in dead slots so they hold no reference to released memory.
    private static let emptyFrame = SharedBytes(count: 0) { _ in }
}
