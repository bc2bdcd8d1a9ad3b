import Glibc

/// Drained output blocks of one thread (one event loop), lent to whichever of its connections writes next.
///
/// A per-connection spare block made every idle connection hold 16 KiB after its first write (the 101 response):
/// most of the RSS of 10,000 idle WebSocket connections. With one pool per loop, block memory grows with the output
/// in flight on that loop, not with the number of connections. Thread-confined by construction (a pthread key); the
/// pool and its blocks are freed when the thread exits.
final class OwnedBlockPool {
    /// At most this many free blocks are kept per thread (4 MiB of 16 KiB blocks); more are freed.
    static let maxFreeBlocks = 256

    private var free: [OwnedBlock] = []

    /// How many blocks wait in the pool.
    var freeCount: Int { free.count }

    /// A drained block of ``WriteQueue/blockSize``, or nil when the pool is empty.
    func take() -> OwnedBlock? { free.popLast() }

    /// Keeps `block` (which nobody else references any more) for the next write on this thread.
    func give(_ block: OwnedBlock) {
        guard block.capacity == WriteQueue.blockSize, free.count < Self.maxFreeBlocks else { return }
        block.count = 0
        free.append(block)
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
