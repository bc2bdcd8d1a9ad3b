import CLinux
import Glibc

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

/// One queued piece of output: bytes the connection owns, or a reference to a shared frame.
enum OutputChunk {
    case owned(OwnedBlock)
    case shared(SharedBytes)

    var base: UnsafeRawPointer {
        switch self {
        case .owned(let block): UnsafeRawPointer(block.base)
        case .shared(let frame): frame.base
        }
    }

    var count: Int {
        switch self {
        case .owned(let block): block.count
        case .shared(let frame): frame.count
        }
    }
}

/// A connection's pending output (style E7): a FIFO of chunks plus ONE offset into the first chunk.
///
/// `fill` gathers the chunks into an iovec array for a single `sendmsg`; `consume` advances by what
/// the kernel took, however it splits across chunks. Loop-confined, never shared.
struct WriteQueue {
    /// Size of a new owned block; writes larger than this get a block of their own size.
    static let blockSize = 16 * 1024

    private var chunks = ContiguousArray<OutputChunk>()
    /// Index of the first chunk not fully sent; chunks before it are dead and compacted lazily.
    private var head = 0
    /// Bytes of `chunks[head]` already sent.
    private var headOffset = 0
    /// Unsent bytes in the queue.
    private(set) var count = 0

    var isEmpty: Bool { count == 0 }

    /// Copies `bytes` into owned blocks, filling the last block before starting a new one.
    mutating func append(_ bytes: UnsafeRawBufferPointer) {
        guard var source = bytes.baseAddress, bytes.count > 0 else { return }
        var remaining = bytes.count
        count += remaining
        if head < chunks.count, case .owned(let last) = chunks[chunks.count - 1], last.count < last.capacity {
            let taken = min(remaining, last.capacity - last.count)
            (last.base + last.count).copyMemory(from: source, byteCount: taken)
            last.count += taken
            source += taken
            remaining -= taken
        }
        guard remaining > 0 else { return }
        // A drained block of this loop (OwnedBlockPool), so a request/response connection allocates no blocks and an
        // idle one holds none.
        let block = remaining <= Self.blockSize ? OwnedBlockPool.current?.take() ?? OwnedBlock(capacity: Self.blockSize)
                                                : OwnedBlock(capacity: remaining)
        block.base.copyMemory(from: source, byteCount: remaining)
        block.count = remaining
        chunks.append(.owned(block))
    }

    /// Queues a reference to `frame`; no bytes are copied.
    mutating func append(_ frame: SharedBytes) {
        guard frame.count > 0 else { return }
        count += frame.count
        chunks.append(.shared(frame))
    }

    /// Writes up to `capacity` iovecs covering at most `maxBytes` unsent bytes, in order.
    /// - Returns: the number of iovecs filled and the bytes they cover.
    func fill(_ iovecs: UnsafeMutablePointer<iovec>, capacity: Int, maxBytes: Int) -> (iovecCount: Int, byteCount: Int) {
        var filled = 0
        var bytes = 0
        var index = head
        var offset = headOffset
        while index < chunks.count, filled < capacity, bytes < maxBytes {
            let chunk = chunks[index]
            let length = min(chunk.count - offset, maxBytes - bytes)
            iovecs[filled] = iovec(iov_base: UnsafeMutableRawPointer(mutating: chunk.base + offset), iov_len: length)
            filled += 1
            bytes += length
            index += 1
            offset = 0
        }
        return (filled, bytes)
    }

    /// Drops the first `sent` bytes (what the kernel accepted), releasing chunks that are done.
    mutating func consume(_ sent: Int) {
        var remaining = sent
        count -= sent
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
        if head == chunks.count {
            // Drained: keep the (small) chunk list of a busy connection, but not a list a burst made large.
            chunks.removeAll(keepingCapacity: chunks.capacity <= 16)
            head = 0
        } else if head >= 64, head * 2 >= chunks.count {
            // Compact only when the dead prefix dominates, so removal stays amortised O(1).
            chunks.removeFirst(head)
            head = 0
        }
    }

    /// Drops everything (the connection closed without flushing).
    mutating func removeAll() {
        for index in head..<chunks.count { release(chunkAt: index) }
        chunks.removeAll()
        head = 0
        headOffset = 0
        count = 0
    }

    private mutating func release(chunkAt index: Int) {
        if case .owned(let block) = chunks[index], block.capacity == Self.blockSize {
            chunks[index] = .shared(WriteQueue.emptyFrame)  // drop our reference so `block` is unique again
            OwnedBlockPool.current?.give(block)
        } else {
            chunks[index] = .shared(WriteQueue.emptyFrame)
        }
    }

    /// Placeholder stored in dead slots so they hold no reference to released memory.
    private static let emptyFrame = SharedBytes(count: 0) { _ in }
}
