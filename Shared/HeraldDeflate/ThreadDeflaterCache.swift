import Glibc

/// One reusable compressor per thread and configuration, for connections that send without context takeover.
///
/// Without context takeover a compressor is reset after every message (RFC 7692 §7.1.1), so nothing of one
/// connection survives into the next message and any connection may borrow it. A deflater costs about
/// 2^(windowBits+2) + 2^(memoryLevel+9) bytes (256 KiB at 15/8); one per loop thread instead of one per connection is
/// the difference between ~1 MiB and ~1.3 GB for 5,000 compressing connections.
///
/// Thread-confined by construction (a pthread key); the cache and its deflaters are freed when the thread exits.
enum ThreadDeflaterCache {
    /// The deflaters of one thread, keyed by configuration.
    final class Storage {
        var deflaters: [Key: ZlibDeflater] = [:]
    }

    struct Key: Hashable {
        var windowBits: Int
        var level: Int32
        var memoryLevel: Int32
    }

    /// nil if the process ran out of pthread keys (PTHREAD_KEYS_MAX); callers then keep a deflater per connection.
    private static let key: pthread_key_t? = {
        var key = pthread_key_t()
        // The destructor releases the thread's Storage (and so calls deflateEnd on each deflater) at thread exit.
        let created = pthread_key_create(&key) { pointer in
            guard let pointer else { return }
            Unmanaged<Storage>.fromOpaque(pointer).release()
        }
        return created == 0 ? key : nil
    }()

    /// This thread's deflater for the configuration, created on first use; nil if zlib or pthreads cannot provide one.
    static func deflater(windowBits: Int, level: Int32, memoryLevel: Int32) -> ZlibDeflater? {
        guard let key else { return nil }
        let storage: Storage
        if let pointer = pthread_getspecific(key) {
            storage = Unmanaged<Storage>.fromOpaque(pointer).takeUnretainedValue()
        } else {
            storage = Storage()
            pthread_setspecific(key, Unmanaged.passRetained(storage).toOpaque())
        }
        let cacheKey = Key(windowBits: windowBits, level: level, memoryLevel: memoryLevel)
        if let existing = storage.deflaters[cacheKey] { return existing }
        guard let made = try? ZlibDeflater(windowBits: windowBits, level: level, memoryLevel: memoryLevel) else { return nil }
        storage.deflaters[cacheKey] = made
        return made
    }
}
