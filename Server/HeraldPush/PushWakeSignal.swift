import Glibc

/// Wakes sleeping delivery workers when pushes were queued, so a push goes out at once instead of at the next poll.
/// A generation counter under a mutex: a signal between a worker's claim and its wait is not lost.
final class PushWakeSignal: @unchecked Sendable {
    private var mutex = pthread_mutex_t()
    private var condition = pthread_cond_t()
    private var generation: UInt64 = 0

    init() {
        pthread_mutex_init(&mutex, nil)
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        pthread_cond_init(&condition, &attributes)
        pthread_condattr_destroy(&attributes)
    }

    deinit {
        pthread_cond_destroy(&condition)
        pthread_mutex_destroy(&mutex)
    }

    /// The current generation, read before looking for work.
    var current: UInt64 {
        pthread_mutex_lock(&mutex)
        defer { pthread_mutex_unlock(&mutex) }
        return generation
    }

    func signal() {
        pthread_mutex_lock(&mutex)
        generation &+= 1
        pthread_cond_broadcast(&condition)
        pthread_mutex_unlock(&mutex)
    }

    /// Sleeps until a signal newer than `seen`, or `milliseconds`.
    func wait(after seen: UInt64, milliseconds: Int64) {
        var deadline = timespec()
        clock_gettime(CLOCK_MONOTONIC, &deadline)
        let total = Int64(deadline.tv_nsec) + max(milliseconds, 0) * 1_000_000
        deadline.tv_sec += Int(total / 1_000_000_000)
        deadline.tv_nsec = Int(total % 1_000_000_000)
        pthread_mutex_lock(&mutex)
        while generation == seen {
            if pthread_cond_timedwait(&condition, &mutex, &deadline) == ETIMEDOUT { break }
        }
        pthread_mutex_unlock(&mutex)
    }
}
