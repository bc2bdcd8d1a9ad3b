import CLinux
import Glibc

/// Drained output blocks of one thread (one event loop), lent to whichever of its connections writes next.
///
/// A per-connection spare block made every idle connection hold 16 KiB after its first write (the 101 response):
/// most of the RSS of 10,000 idle WebSocket connections. With one pool per loop, block memory grows with the output
/// in flight on that loop, not with the number of connections. Thread-confined by construction (a thread-local
/// pointer); the pool and its blocks are freed when the thread exits.
final class OwnedBlockPool {
    /// At most this many free blocks of ``WriteQueue/blockSize`` are kept per thread (4 MiB); more are freed.
    static let maxFreeBlocks = 256
    /// At most this many free blocks of ``WriteQueue/smallBlockSize`` are kept per thread (512 KiB).
    static let maxFreeSmallBlocks = 512

    private var free: [OwnedBlock] = []
    private var freeSmall: [OwnedBlock] = []

    /// How many blocks of ``WriteQueue/blockSize`` wait in the pool.
    var freeCount: Int { free.count }
    /// How many blocks of ``WriteQueue/smallBlockSize`` wait in the pool.
    var freeSmallCount: Int { freeSmall.count }

    /// A drained block of ``WriteQueue/blockSize``, or nil when the pool is empty.
    func take() -> OwnedBlock? { free.popLast() }

    /// A drained block of ``WriteQueue/smallBlockSize``, or nil when the pool has none.
    func takeSmall() -> OwnedBlock? { freeSmall.popLast() }

    /// Takes `block` (which nobody else references any more) out of its slot and keeps it for the next write on this
    /// thread, if it is of a pooled size and the pool is not full; otherwise the slot keeps it. Taken from a slot
    /// rather than passed: through ``withCurrent(_:)``'s closure a passed block would be counted once more.
    func give(_ block: inout OwnedBlock?) {
        guard let capacity = block?.capacity else { return }
        switch capacity {
        case WriteQueue.blockSize where free.count < Self.maxFreeBlocks:
            block!.count = 0
            free.append(block.take()!)
        case WriteQueue.smallBlockSize where freeSmall.count < Self.maxFreeSmallBlocks:
            block!.count = 0
            freeSmall.append(block.take()!)
        default:
            return
        }
    }

    /// Runs `body` with the calling thread's pool, created on first use, lent without counting a reference: the
    /// pool lives as long as its thread. An echo takes a block and gives it back per message; through
    /// pthread_getspecific and a counted reference each time, that was a tenth of its user-space instructions.
    @inline(__always)
    static func withCurrent<Result>(_ body: (OwnedBlockPool) -> Result) -> Result {
        let pointer = clinux_get_thread_block_pool() ?? makeCurrent()
        return Unmanaged<OwnedBlockPool>.fromOpaque(pointer)._withUnsafeGuaranteedRef(body)
    }

    /// The calling thread's pool (see ``withCurrent(_:)``), as a counted reference: for tests and diagnostics.
    static var current: OwnedBlockPool { withCurrent { $0 } }

    /// Makes the calling thread's pool, holding one reference for the thread; the thread-exit destructor (a pthread
    /// key) gives it back, and with it the pool's blocks.
    @inline(never)
    private static func makeCurrent() -> UnsafeMutableRawPointer {
        let pointer = Unmanaged.passRetained(OwnedBlockPool()).toOpaque()
        clinux_set_thread_block_pool(pointer)
        if let exitKey { pthread_setspecific(exitKey, pointer) }
        return pointer
    }

    /// Only for its destructor: nothing reads the key's value on the hot path.
    private static let exitKey: pthread_key_t? = {
        var key = pthread_key_t()
        let created = pthread_key_create(&key) { pointer in
            guard let pointer else { return }
            clinux_set_thread_block_pool(nil)
            Unmanaged<OwnedBlockPool>.fromOpaque(pointer).release()
        }
        return created == 0 ? key : nil
    }()
}
