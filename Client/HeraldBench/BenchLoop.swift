import Glibc
import HeraldClock

/// What a scenario hears from the loop, all on the loop's one thread.
protocol BenchLoopDelegate: AnyObject {
    /// The upgrade succeeded.
    func connectionOpened(_ connection: BenchConnection)
    /// One text message from the server.
    func connection(_ connection: BenchConnection, received text: UnsafeBufferPointer<UInt8>, at now: UInt64)
    /// The connection ended or was refused; `reason` says why. The loop has closed the socket.
    func connectionEnded(_ connection: BenchConnection, reason: String)
}

/// A single-threaded epoll loop over many ``BenchConnection``s. Output queued during a pass is written once
/// at its end, so a burst of sends to one connection costs one syscall.
final class BenchLoop {
    private var epoll: Epoll
    /// Connections by descriptor.
    private var byFD: [BenchConnection?] = []
    private var flushList: [BenchConnection] = []
    private var readBuffer: UnsafeMutableRawBufferPointer
    private var events: [BenchConnection.Input] = []
    /// Not retained (the fleet owns the loop) and not weak: a weak load per frame was a few % of a /sync fan-out's
    /// generator. The fleet sets itself here and outlives every pass of the loop.
    unowned(unsafe) var delegate: (any BenchLoopDelegate)?
    let port: Int
    /// Every node's port (`port` first); connection `tag` goes to `ports[(firstTag + tag) % ports.count]` (fan-out
    /// over nodes).
    let ports: [Int]
    /// The crowd-wide index of this loop's connection 0: a process holding one share of a crowd (`hold`) spreads its
    /// devices over nodes and source addresses as one process holding them all would.
    let firstTag: Int
    /// The loopback addresses connections come from (connection `tag` from ``SourceAddresses/address(for:)``).
    let sourceAddresses: SourceAddresses
    /// Connections currently registered.
    private(set) var openCount = 0

    init(port: Int, otherPorts: [Int] = [], sourceAddresses: SourceAddresses, firstTag: Int = 0) throws(BenchError) {
        epoll = try Epoll(capacity: 4096)
        self.port = port
        ports = [port] + otherPorts
        self.firstTag = firstTag
        self.sourceAddresses = sourceAddresses
        readBuffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 256 << 10, alignment: 16)
    }

    deinit { readBuffer.deallocate() }

    /// Connects `connection` to `path` with `token`.
    func connect(_ connection: BenchConnection, path: String, token: String) throws(BenchError) {
        let tag = firstTag + max(connection.tag, 0)
        try connection.open(port: ports[tag % ports.count], path: path, token: token, source: sourceAddresses.address(for: tag))
        let fd = Int(connection.fd)
        if fd >= byFD.count { byFD += [BenchConnection?](repeating: nil, count: fd - byFD.count + 1024) }
        byFD[fd] = connection
        openCount += 1
        connection.wantsWritable = true
        guard epoll.set(connection.fd, events: Epoll.readable | Epoll.writable, adding: true) else {
            throw BenchError("epoll_ctl add: \(String(cString: strerror(errno)))")
        }
    }

    /// Marks `connection` as having output to write at the end of the pass.
    func markDirty(_ connection: BenchConnection) {
        guard !connection.queuedForFlush, connection.fd >= 0 else { return }
        connection.queuedForFlush = true
        flushList.append(connection)
    }

    /// Drops a connection without telling the delegate.
    func drop(_ connection: BenchConnection) {
        guard connection.fd >= 0 else { return }
        epoll.remove(connection.fd)
        byFD[Int(connection.fd)] = nil
        openCount -= 1
        connection.closeSocket()
    }

    private func end(_ connection: BenchConnection, _ reason: String) {
        guard connection.fd >= 0 else { return }
        drop(connection)
        delegate?.connectionEnded(connection, reason: reason)
    }

    /// One pass: waits up to `timeoutMs` for readiness, handles it, then flushes queued output.
    func runOnce(timeoutMs: Int32) {
        epoll.wait(timeoutMs: timeoutMs) { ready in
            guard Int(ready.fd) < byFD.count, let connection = byFD[Int(ready.fd)] else { return }
            if ready.events & Epoll.writable != 0 {
                if !connection.flush() { return end(connection, "write failed: \(String(cString: strerror(errno)))") }
                if !connection.hasPendingOutput && connection.wantsWritable {
                    connection.wantsWritable = false
                    _ = epoll.set(connection.fd, events: Epoll.readable, adding: false)
                }
            }
            if ready.events & (Epoll.readable | Epoll.error | Epoll.hangUp) != 0 { read(connection) }
        }
        flushPending()
    }

    private func read(_ connection: BenchConnection) {
        let count = Glibc.read(connection.fd, readBuffer.baseAddress, readBuffer.count)
        if count < 0 {
            if errno == EAGAIN || errno == EINTR { return }
            return end(connection, "read failed: \(String(cString: strerror(errno)))")
        }
        if count == 0 { return end(connection, "server closed TCP") }
        let now = MonotonicClock.nanoseconds()
        let bytes = UnsafeRawBufferPointer(rebasing: readBuffer[0..<count])
        var taken = 0
        if let delegate {
            // What the delegate sends it queues through the fleet, which marks the connection for the flush.
            taken = connection.takeWholeTextFrames(bytes) { delegate.connection(connection, received: $0, at: now) }
        }
        guard taken < count else { return }
        events.removeAll(keepingCapacity: true)
        connection.receive(UnsafeRawBufferPointer(rebasing: bytes[taken...]), into: &events)
        if connection.hasPendingOutput { markDirty(connection) }
        let batch = events
        for event in batch {
            switch event {
            case .opened: delegate?.connectionOpened(connection)
            case .text(let range): connection.withMessage(range) { delegate?.connection(connection, received: $0, at: now) }
            case .textInRead(let bytes): delegate?.connection(connection, received: bytes.assumingMemoryBound(to: UInt8.self), at: now)
            case .rejected(let reason): return end(connection, reason)
            case .closed(let reason):
                _ = connection.flush()
                return end(connection, reason)
            }
        }
    }

    /// Writes everything queued this pass; arms EPOLLOUT where the socket is full.
    func flushPending() {
        let list = flushList
        flushList.removeAll(keepingCapacity: true)
        for connection in list {
            connection.queuedForFlush = false
            guard connection.fd >= 0 else { continue }
            if !connection.flush() {
                end(connection, "write failed: \(String(cString: strerror(errno)))")
                continue
            }
            if connection.hasPendingOutput && !connection.wantsWritable {
                connection.wantsWritable = true
                _ = epoll.set(connection.fd, events: Epoll.readable | Epoll.writable, adding: false)
            }
        }
    }
}
