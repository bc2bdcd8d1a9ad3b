import Synchronization

/// Cheap running totals of one event loop, for metrics: written only by the loop's own thread (a relaxed load and
/// store, ``Synchronization/Atomic/addAsSoleWriter(_:)``), read by anyone.
public final class LoopCounters: Sendable {
    /// Bytes read from sockets (after TLS: ciphertext, as the kernel saw them).
    public let bytesRead = Atomic<Int>(0)
    /// Bytes the kernel accepted from `sendmsg`.
    public let bytesWritten = Atomic<Int>(0)
    /// Connections closed because their outbound queue would have passed `maxQueuedBytesPerConnection`.
    public let slowConsumerCloses = Atomic<Int>(0)
    /// Connections accepted.
    public let accepted = Atomic<Int>(0)
    /// `accept4` failures for lack of descriptors or kernel memory (EMFILE, ENFILE, ENOBUFS, ENOMEM), each of which
    /// paused the listener for one tick. Counted here rather than logged: the server reads the deltas off the loop
    /// threads and logs them rate-limited, so the accept path never formats or locks anything.
    public let descriptorExhaustions = Atomic<Int>(0)
    /// The errno of the latest of ``descriptorExhaustions`` (0 before the first).
    public let lastDescriptorExhaustionErrno = Atomic<Int32>(0)

    init() {}

    // Callers in this module need no `Synchronization` import for these.
    func didRead(_ count: Int) { bytesRead.addAsSoleWriter(count) }
    func didWrite(_ count: Int) { bytesWritten.addAsSoleWriter(count) }
    func didAccept() { accepted.add(1, ordering: .relaxed) }
    func didCloseSlowConsumer() { slowConsumerCloses.add(1, ordering: .relaxed) }
    func didRunOutOfDescriptors(errno code: Int32) {
        lastDescriptorExhaustionErrno.store(code, ordering: .relaxed)
        descriptorExhaustions.add(1, ordering: .relaxed)
    }
}

extension EventLoop {
    /// Bytes queued on this loop's connections and not yet accepted by the kernel. Loop thread only.
    public var queuedOutputBytes: Int {
        var total = 0
        for connection in live { total += connection.output.count }
        return total
    }
}

extension Atomic where Value == Int {
    /// Adds `amount` to a total that only the calling thread ever changes (a loop's own counters): a relaxed load and
    /// store instead of a locked read-modify-write, which costs as much as a reference count and was paid per read and
    /// per write. Readers on other threads still see whole values; two writers would lose counts.
    @inline(__always)
    public func addAsSoleWriter(_ amount: Int) { store(load(ordering: .relaxed) &+ amount, ordering: .relaxed) }
}
