import Glibc

/// Drained output blocks of one thread (one event loop), lent to whichever of its connections writes next.
///
/// A per-connection spare block made every idle connection hold 16 KiB after its first write (the 101 response):
/// most of the RSS of 10,000 idle WebSocket connections. With one pool per loop, block memory grows with the output
/// in flight on that loop, not with the number of connections. Thread-confined by construction (a pthread key); the
/// pool and its blocks are freed when the thread exits.
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

    /// Keeps `block` (which nobody else references any more) for the next write on this thread, if it is of a pooled
    /// size and the pool is not full.
    func give(_ block: OwnedBlock) {
        switch block.capacity {
        case WriteQueue.blockSize where free.count < Self.maxFreeBlocks:
            block.count = 0
            free.append(block)
        case WriteQueue.smallBlockSize where freeSmall.count < Self.maxFreeSmallBlocks:
            block.count = 0
            freeSmall.append(block)
        default:
            return
        }
    }

    /// The calling thread's pool, created on first use; nil if the process ran out of pthread keys.
    static var current: OwnedBlockPool? {
        guard let key else { return nil }
        if let pointer = pthread_getspecific(key) { return Unmanaged<OwnedBlockPool>.fromOpaque(pointer).takeUnretainedValue() }
        let pool = OwnedBlockPool()
        pthread_setspecific(key, Unmanaged.passRetained(pool).toOpaque())
        return pool
    }

    private static let key: pthread_key_t? = {
        var key = pthread_key_t()
        // The destructor releases the thread's pool (and so its blocks) at thread exit.
        let created = pthread_key_create(&key) { pointer in
            guard let pointer else { return }
            Unmanaged<OwnedBlockPool>.fromOpaque(pointer).release()
        }
        return created == 0 ? key : nil
    }()
}
