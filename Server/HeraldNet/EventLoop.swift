import CLinux
import Glibc
import Synchronization

/// One thread, one epoll instance, and everything that runs on it.
///
/// **Edge-triggered** epoll for connections, level-triggered for the rest. The loop reads at most one buffer (64 KiB)
/// per connection per wakeup and moves on, for fairness between connections without "drain until EAGAIN" loops; a
/// read that fills the buffer puts the connection on a list read again next pass, since an edge reports only bytes
/// that arrive later. Level-triggered, every connection an `epoll_wait` reported was polled by the kernel again in
/// the next one, only to be found drained: for a request/response connection, ~1% of the server's time (the echo
/// benchmark, BENCHMARKS.md). EPOLLOUT stays a plain interest change (`epoll_ctl` MOD reports a socket that is ready
/// at once, as it does a paused socket's waiting bytes when EPOLLIN comes back). The eventfd, timerfd and listeners
/// stay level-triggered: "stop polling the listener for a tick" (EMFILE) is a one-line MOD, and a wake-up left unread
/// is reported again.
///
/// Each pass of the loop:
/// 1. runs tasks posted from other threads (`execute`): a `Mutex`-protected inbox plus an eventfd;
/// 2. decrypts what TLS engines still hold from earlier reads, reads again the sockets whose last read filled the
///    buffer, then writes every connection with queued output, one `sendmsg` each, handling what epoll has
///    ready every 64 connections of a long flush;
/// 3. closes connections marked for close, then calls `connectionDidClose`;
/// 4. waits in `epoll_wait` (without timeout unless writes or reads are still pending) and handles the ready batch;
/// 5. closes connections marked during the batch. Descriptors are never closed inside a batch (nor inside a flush),
///    so no descriptor number is reused while stale events for it may still be in the array.
///
/// A timerfd ticks every `tickMilliseconds` and runs the deadline sweep.
///
/// `EventLoop` is shared across threads only through `execute`, `now` and `inEventLoop`; everything
/// else is confined to the loop thread.
public final class EventLoop: @unchecked Sendable {
    // @unchecked: the cross-thread surface is the Mutex inbox, the atomics and immutable lets; all other
    // stored properties are touched only on the loop thread (after `run` starts).

    /// This loop's position in `LoopGroup.loops` (and in every `ConnectionHandle` it issues).
    public let index: Int

    struct Inbox {
        var tasks = ContiguousArray<@Sendable () -> Void>()
        /// An eventfd write is already on its way; later posters need not write again.
        var wakePending = false
        /// The loop has stopped: new tasks are dropped.
        var isClosed = false
    }

    let inbox = Mutex(Inbox())
    let wakeFD: Int32
    let epollFD: Int32
    let timerFD: Int32
    @usableFromInline let cachedNow: Atomic<Int64>
    /// Running totals (bytes, accepts, slow-consumer closes) for metrics; safe to read from any thread.
    public let counters = LoopCounters()
    private let threadID = Atomic<UInt>(0)

    // MARK: Loop-confined state

    /// What a descriptor number currently stands for, indexed by fd. A connection is named, not owned: ``live`` owns
    /// it and outlives the slot (the slot is freed first when it closes), so finding one counts no reference.
    enum Occupant {
        case free
        case wakeup
        case timer
        case listener(ServerBinding)
        case connection(Unmanaged<Connection>)
    }

    struct Slot {
        /// Bumped each time the descriptor number is registered; part of epoll's user data.
        var generation: UInt32 = 0
        var occupant = Occupant.free
    }

    var slots = ContiguousArray<Slot>()
    /// Every open connection on this loop, dense, for the sweep and shutdown.
    var live = ContiguousArray<Connection>()
    var pendingWrites = ContiguousArray<Connection>()
    var pendingCloses = ContiguousArray<Connection>()
    /// TLS connections whose engine still holds decrypted bytes epoll cannot report.
    var pendingReads = ContiguousArray<Connection>()
    /// Connections whose last read filled the read buffer: the socket may hold more, and edge-triggered epoll reports
    /// only what arrives after (``Connection/mayHaveMoreInput``).
    var pendingSocketReads = ContiguousArray<Connection>()
    /// Scratch for TLS: plaintext of one receive, and ciphertext of one receive or write. Reused, never shared.
    var tlsPlaintext: [UInt8] = []
    var tlsCiphertext: [UInt8] = []
    var bindings: [ServerBinding] = []
    /// One object the layer above keeps per loop, for what all its connections on this loop may share (the WebSocket
    /// sessions' input buffers, so an idle session holds none). Loop thread only, like the connections.
    public var attachment: AnyObject?
    private var spareTasks = ContiguousArray<@Sendable () -> Void>()
    /// Work to run once the events being handled are done (``onceEventsHandled(_:_:)``), at most one per token.
    private var afterEvents = ContiguousArray<(token: ObjectIdentifier, work: () -> Void)>()
    var isStopping = false
    var tickMilliseconds: Int

    /// Allocated once: epoll's result array, the shared read buffer, the iovec array for writes (with the place the
    /// bytes kept in write-queue chunks are copied to for them) and the buffer small gathered writes are copied into.
    private let events: UnsafeMutablePointer<epoll_event>
    private let eventCapacity = 1024
    let readBuffer: UnsafeMutableRawPointer
    let readBufferSize: Int
    /// A fan-out receiver of a busy raw broadcast has ~67 frames queued at a pass (each a piece), a /sync receiver two
    /// pieces per event: room for all of them in one write, and a gather buffer as large as a loopback segment.
    let iovecs: UnsafeMutablePointer<iovec>
    let iovecCapacity = 256
    let inlineScratch: UnsafeMutableRawPointer
    let gatherBuffer: UnsafeMutableRawPointer
    let gatherBufferSize = 64 << 10
    /// The reply cork (``EventLoop+Cork.swift``): the connection whose input is being handled, if its replies may be
    /// gathered here, and what they hold so far. Its own buffer, since a flush inside a read handler uses the others.
    var corkOwner: UnsafeMutableRawPointer?
    let corkBuffer: UnsafeMutableRawPointer
    let corkCapacity = 16 << 10
    var corkLength = 0

    /// Creates the loop's descriptors. The loop does nothing until `run` is called on its thread.
    init(index: Int, tickMilliseconds: Int, readBufferSize: Int) throws(NetError) {
        self.index = index
        self.tickMilliseconds = max(1, tickMilliseconds)
        self.readBufferSize = readBufferSize
        self.cachedNow = Atomic(Tick.monotonicNow().milliseconds)
        epollFD = try blockingSyscall("epoll_create1") { epoll_create1(Int32(EPOLL_CLOEXEC)) }
        do {
            wakeFD = try blockingSyscall("eventfd") { eventfd(0, Int32(EFD_NONBLOCK | EFD_CLOEXEC)) }
        } catch {
            closeDescriptor(epollFD)
            throw error
        }
        do {
            timerFD = try blockingSyscall("timerfd_create") {
                timerfd_create(CLOCK_MONOTONIC, Int32(TFD_NONBLOCK | TFD_CLOEXEC))
            }
        } catch {
            closeDescriptor(epollFD)
            closeDescriptor(wakeFD)
            throw error
        }
        events = .allocate(capacity: eventCapacity)
        readBuffer = .allocate(byteCount: readBufferSize, alignment: 16)
        iovecs = .allocate(capacity: iovecCapacity)
        inlineScratch = .allocate(byteCount: WriteQueue.inlineScratchSize(capacity: iovecCapacity), alignment: 8)
        gatherBuffer = .allocate(byteCount: gatherBufferSize, alignment: 64)
        corkBuffer = .allocate(byteCount: corkCapacity, alignment: 64)
        try register(wakeFD, as: .wakeup, events: CLINUX_EPOLLIN)
        try register(timerFD, as: .timer, events: CLINUX_EPOLLIN)
        try armTimer()
    }

    deinit {
        closeDescriptor(timerFD)
        closeDescriptor(wakeFD)
        closeDescriptor(epollFD)
        events.deallocate()
        readBuffer.deallocate()
        iovecs.deallocate()
        inlineScratch.deallocate()
        gatherBuffer.deallocate()
        corkBuffer.deallocate()
    }

    // MARK: - API

    /// The loop's cached monotonic clock, refreshed each time the loop wakes. Safe from any thread.
    /// Inlinable: a session reads it for every message it receives, and as a call the loop was counted around it.
    @inlinable public var now: Tick { Tick(milliseconds: cachedNow.load(ordering: .relaxed)) }

    /// True when called on this loop's thread.
    public var inEventLoop: Bool { threadID.load(ordering: .acquiring) == pthread_self() }

    /// Runs `work` on the loop thread soon, after the current batch. Safe from any thread, including the
    /// loop's own. Work posted after the loop stopped is dropped.
    public func execute(_ work: @escaping @Sendable () -> Void) {
        let needsWake = inbox.withLock { inbox -> Bool in
            guard !inbox.isClosed else { return false }
            inbox.tasks.append(work)
            guard !inbox.wakePending else { return false }
            inbox.wakePending = true
            return true
        }
        if needsWake {
            var one: UInt64 = 1
            // EAGAIN only if the counter is near 2^64: the loop is awake anyway.
            _ = try? syscall("write(eventfd)") { Glibc.write(wakeFD, &one, 8) }
        }
    }

    /// The open connection `handle` names, or nil if it has closed (or its descriptor was reused).
    /// Call only on this loop's thread.
    public func connection(for handle: ConnectionHandle) -> Connection? {
        unownedConnection(for: handle)?.takeUnretainedValue()
    }

    /// The same, without counting a reference: for a loop over many receivers (a fan-out), which uses the connection
    /// through `_withUnsafeGuaranteedRef` and only before it returns to the loop (a connection is let go only after
    /// the current batch). Call only on this loop's thread.
    @inline(__always)
    public func unownedConnection(for handle: ConnectionHandle) -> Unmanaged<Connection>? {
        assert(inEventLoop, "EventLoop.connection(for:) called off the loop thread")
        let fd = Int(handle.fd)
        guard handle.loopIndex == index, fd >= 0, fd < slots.count, slots[fd].generation == handle.generation,
            case .connection(let connection) = slots[fd].occupant,
            connection._withUnsafeGuaranteedRef({ $0.state == .open })
        else { return nil }
        return connection
    }

    /// The number of open connections on this loop. Call only on this loop's thread.
    public var connectionCount: Int { live.count }

    // MARK: - The loop

    /// Runs the loop on the calling thread until `requestStop`.
    func run() {
        threadID.store(pthread_self(), ordering: .releasing)
        refreshClock()
        while !isStopping {
            runInbox()
            if isStopping { break }
            drainPendingReads()
            readPendingSockets()
            flushPendingWrites()
            closePendingConnections()
            runAfterEvents()
            handleReadyEvents(waiting: pendingWrites.isEmpty && pendingReads.isEmpty && pendingSocketReads.isEmpty)
            closePendingConnections()
            runAfterEvents()
        }
        finishStopping()
    }

    /// Waits in `epoll_wait` (only when `waiting`; otherwise it takes what is ready now) and handles the ready batch.
    /// Called from the pass and, `withinFlush`, from inside a long flush (``flushPendingWrites()``); never from within
    /// a batch: the events array is the loop's one.
    func handleReadyEvents(waiting: Bool, withinFlush: Bool = false) {
        let ready: Int32
        do {
            switch try syscall("epoll_wait", { clinux_epoll_wait(epollFD, events, Int32(eventCapacity), waiting ? -1 : 0) }) {
            case .processed(let count): ready = count
            case .wouldBlock: ready = 0
            }
        } catch {
            // Only EINVAL/ENOMEM-class failures reach here; retrying is the only sensible move.
            ready = 0
        }
        refreshClock()
        for position in 0..<Int(ready) {
            let event = events[position]
            dispatch(userData: event.data.u64, events: event.events, withinFlush: withinFlush)
        }
    }

    /// Runs `body` for each connection on the per-pass `list` as it stands now; what `body` puts on the list meanwhile
    /// waits for the next pass. The list's storage is handed back when nothing was added, so a busy list allocates
    /// nothing per pass.
    func takeEach(from list: ReferenceWritableKeyPath<EventLoop, ContiguousArray<Connection>>, _ body: (Connection) -> Void) {
        guard !self[keyPath: list].isEmpty else { return }
        var batch = ContiguousArray<Connection>()
        swap(&batch, &self[keyPath: list])
        for connection in batch { body(connection) }
        batch.removeAll(keepingCapacity: true)
        if self[keyPath: list].isEmpty { swap(&batch, &self[keyPath: list]) }
    }

    /// Runs `work` on this loop once the events it is handling now (reads, tasks, closes) are all handled, before it
    /// waits again, unless work with the same `token` is already waiting for that: for a consumer on another thread
    /// that is better woken once for everything one pass read than once per message. Call only on this loop's thread.
    public func onceEventsHandled(_ token: ObjectIdentifier, _ work: @escaping () -> Void) {
        assert(inEventLoop, "EventLoop.onceEventsHandled called off the loop thread")
        for waiting in afterEvents where waiting.token == token { return }
        afterEvents.append((token, work))
    }

    private func runAfterEvents() {
        guard !afterEvents.isEmpty else { return }
        let works = afterEvents
        afterEvents.removeAll(keepingCapacity: true)
        for waiting in works { waiting.work() }
    }

    /// Asks the loop to close everything it holds and return from `run`. Safe from any thread.
    func requestStop() {
        execute { self.isStopping = true }
    }

    private func refreshClock() {
        cachedNow.store(Tick.monotonicNow().milliseconds, ordering: .relaxed)
    }

    private func runInbox() {
        var batch = ContiguousArray<@Sendable () -> Void>()
        swap(&batch, &spareTasks)
        inbox.withLock { inbox in
            swap(&inbox.tasks, &batch)
            inbox.wakePending = false
        }
        for task in batch { task() }
        batch.removeAll(keepingCapacity: true)
        swap(&batch, &spareTasks)
    }

    private func dispatch(userData: UInt64, events: UInt32, withinFlush: Bool) {
        let fd = Int(Int32(truncatingIfNeeded: userData))
        let generation = UInt32(truncatingIfNeeded: userData >> 32)
        // Stale: the descriptor was closed (and maybe reused) since this registration.
        guard fd >= 0, fd < slots.count, slots[fd].generation == generation else { return }
        switch slots[fd].occupant {
        case .free:
            return
        case .wakeup:
            // Within a flush the posted tasks cannot run yet (they run at the top of the pass); draining the eventfd
            // now would let the pass's own wait sleep on them. Left alone, level-triggered epoll reports it again.
            guard !withinFlush else { return }
            drainCounter(wakeFD)
        case .timer:
            drainCounter(timerFD)
            sweep()
        case .listener(let binding):
            acceptConnections(for: binding)
        case .connection(let connection):
            // Lent uncounted: a connection closed meanwhile stays in `live` until the pass's closes run.
            connection._withUnsafeGuaranteedRef { handle($0, events: events) }
        }
    }

    /// Reads an eventfd/timerfd counter so level-triggered epoll stops reporting it.
    private func drainCounter(_ fd: Int32) {
        var counter: UInt64 = 0
        _ = try? syscall("read(counter)") { Glibc.read(fd, &counter, 8) }
    }

    private func finishStopping() {
        for binding in bindings { closeListener(of: binding) }
        for connection in live { scheduleClose(connection) }
        closePendingConnections()
        for binding in bindings where !binding.hasReportedStopped {
            binding.hasReportedStopped = true
            binding.server.loopDidStop()
        }
        runAfterEvents()
        bindings.removeAll()
        inbox.withLock { inbox in
            inbox.isClosed = true
            inbox.tasks.removeAll()
        }
    }

    // MARK: - epoll registrations

    /// Registers `fd` with a fresh generation; epoll's user data is `generation << 32 | fd`.
    @discardableResult
    func register(_ fd: Int32, as occupant: Occupant, events: UInt32) throws(NetError) -> UInt32 {
        let position = Int(fd)
        if position >= slots.count {
            slots.append(contentsOf: repeatElement(Slot(), count: max(position + 1 - slots.count, slots.count)))
        }
        slots[position].generation &+= 1
        let generation = slots[position].generation
        var event = epoll_event()
        event.events = events
        event.data.u64 = UInt64(generation) << 32 | UInt64(UInt32(bitPattern: fd))
        try blockingSyscall("epoll_ctl(ADD)") { epoll_ctl(epollFD, EPOLL_CTL_ADD, fd, &event) }
        slots[position].occupant = occupant
        return generation
    }

    /// Changes the events epoll reports for an already registered `fd`.
    func modify(_ fd: Int32, events: UInt32) throws(NetError) {
        var event = epoll_event()
        event.events = events
        event.data.u64 = UInt64(slots[Int(fd)].generation) << 32 | UInt64(UInt32(bitPattern: fd))
        try blockingSyscall("epoll_ctl(MOD)") { epoll_ctl(epollFD, EPOLL_CTL_MOD, fd, &event) }
    }

    /// Re-arms the periodic timerfd at `tickMilliseconds`.
    func armTimer() throws(NetError) {
        // Split before scaling: the tick comes from the options, and `tick * 1_000_000` traps above ~292 years.
        let period = timespec(tv_sec: tickMilliseconds / 1_000, tv_nsec: (tickMilliseconds % 1_000) * 1_000_000)
        var spec = itimerspec(it_interval: period, it_value: period)
        try blockingSyscall("timerfd_settime") { timerfd_settime(timerFD, 0, &spec, nil) }
    }
}
