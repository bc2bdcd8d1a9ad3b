import CLinux
import Glibc
import HeraldBytes

/// The write path: writes only queue; the loop flushes every pending connection with one system call
/// just before it waits (several small pieces copied into one buffer, larger ones gathered by `sendmsg`), and arms
/// EPOLLOUT only for what the kernel did not take.
extension EventLoop {
    /// Puts `connection` on the pending-write list once.
    func scheduleWrite(_ connection: Connection) {
        guard !connection.isPendingWrite else { return }
        connection.isPendingWrite = true
        pendingWrites.append(connection)
    }

    /// How many connections a flush writes between two looks at what has arrived meanwhile.
    static let writesBetweenReads = 64

    /// Writes every pending connection. Connections that hit the per-pass byte cap with the socket still
    /// writable stay on the list, and the loop then polls without sleeping so they continue next pass.
    ///
    /// A long flush (a fan-out to many receivers: ~4 µs of kernel time per send) stops every
    /// ``writesBetweenReads`` connections to handle what epoll has ready, without waiting. A message that arrives
    /// meanwhile is then queued for the receivers not yet written in this flush and goes out with what they already
    /// had, instead of waiting for the whole flush to end and then for a flush of its own: its receivers get it up to
    /// a pass sooner, and each send carries more. Connections the reads make pending that this flush has already
    /// written are kept for the next pass, so the flush ends.
    func flushPendingWrites() {
        var kept = 0
        let count = pendingWrites.count
        for position in 0..<count {
            if position > 0, position % Self.writesBetweenReads == 0 {
                handleReadyEvents(waiting: false, withinFlush: true)
            }
            let connection = pendingWrites[position]
            connection.isPendingWrite = false
            guard connection.isOpenOrDraining else { continue }
            if flush(connection) {
                connection.isPendingWrite = true
                pendingWrites[kept] = connection
                kept += 1
            }
        }
        // Made pending by the reads in between, after their turn in this flush.
        for position in count..<pendingWrites.count {
            pendingWrites[kept] = pendingWrites[position]
            kept += 1
        }
        pendingWrites.removeLast(pendingWrites.count - kept)
    }

    /// Sends what `connection` has queued now rather than at the end of the pass, for a caller that has queued
    /// everything this pass holds for it while the pass goes on to others: a fan-out that goes receiver by receiver
    /// lets each receiver start reading while the rest are served (perf of a /sync group of 1,000: with every write
    /// at the end of the pass, the reading side only began once the loop had queued all 1,000, and the server then
    /// idled a quarter of the time waiting for it to finish). It stays on the pending list, so whatever the kernel
    /// did not take still goes out as usual.
    public func flushEarly(_ connection: Connection) {
        guard connection.isPendingWrite, connection.isOpenOrDraining else { return }
        _ = flush(connection)
    }

    /// Sends `bytes` on `connection` at once when nothing is queued ahead of them on a plain, open connection, and
    /// queues a copy of whatever the kernel does not take; otherwise queues a copy of them all (behind what is queued,
    /// into the reply cork, encrypted on TLS, or not at all once the connection is closing). For a fan-out that builds
    /// each receiver's whole run in one buffer and reuses it for the next receiver: the bytes are not named after this
    /// returns.
    public func writeNow(_ bytes: UnsafeRawBufferPointer, on connection: Connection) {
        guard connection.state == .open, connection.tls == nil, connection.output.isEmpty, !connection.wantsWritable,
              !isCorking(connection), let base = bytes.baseAddress, !bytes.isEmpty
        else {
            connection.write(bytes)
            return
        }
        let result: IOResult<Int>
        do {
            result = try send(base, bytes.count, on: connection)
        } catch {
            scheduleClose(connection)  // EPIPE, ECONNRESET: the peer is gone
            return
        }
        guard case .processed(let sent) = result else {
            connection.write(bytes)  // the socket is full: queued, and the flush arms EPOLLOUT
            return
        }
        counters.didWrite(sent)
        if sent < bytes.count { connection.write(UnsafeRawBufferPointer(rebasing: bytes[sent...])) }
    }

    /// Sends as much of the queue as the kernel takes, up to the per-pass cap.
    /// - Returns: true when the cap stopped us while the socket could take more.
    private func flush(_ connection: Connection) -> Bool {
        let cap = connection.binding.config.maxBytesPerWritePass
        var written = 0
        while !connection.output.isEmpty {
            if written >= cap { return true }
            let result: IOResult<Int>
            let requested: Int
            do {
                (result, requested) = try sendOnce(connection, maxBytes: cap - written)
            } catch {
                scheduleClose(connection)  // EPIPE, ECONNRESET: the peer is gone
                return false
            }
            switch result {
            case .wouldBlock:
                armWritable(connection)
                return false
            case .processed(let sent):
                connection.output.consume(sent)
                counters.didWrite(sent)
                written += sent
                if sent < requested {
                    armWritable(connection)  // the socket buffer is full; EPOLLOUT brings us back
                    return false
                }
            }
        }
        if connection.wantsWritable {
            connection.wantsWritable = false
            updateInterest(of: connection)
        }
        if connection.state == .closingAfterFlush {
            scheduleClose(connection)
        }
        return false
    }

    /// One system call's worth of `connection`'s queue, at most `maxBytes`: the whole queue copied straight into the
    /// gather buffer when it is several small pieces (most fan-out writes; no iovecs filled and read back for it), else
    /// the pieces ``WriteQueue/fill(_:capacity:maxBytes:inlineScratch:)`` names, sent as ``WriteShape`` says.
    /// - Returns: the kernel's answer and the bytes offered to it.
    @inline(__always)
    private func sendOnce(_ connection: Connection, maxBytes: Int) throws(NetError) -> (IOResult<Int>, requested: Int) {
        // A single piece (a request/response connection's usual queue) goes to `send` below without the look.
        if connection.output.pieceCount > 1,
           let gathered = connection.output.gatherAll(into: gatherBuffer, capacity: min(gatherBufferSize, maxBytes)) {
            return (try send(gatherBuffer, gathered, on: connection), gathered)
        }
        let (iovecCount, requested) = connection.output.fill(
            iovecs, capacity: iovecCapacity, maxBytes: maxBytes, inlineScratch: inlineScratch)
        // MSG_NOSIGNAL: a vanished peer is EPIPE here, never a process-killing SIGPIPE.
        switch WriteShape.of(pieces: iovecCount, bytes: requested, gatherCapacity: gatherBufferSize) {
        case .single:
            return (try send(iovecs[0].iov_base, iovecs[0].iov_len, on: connection), requested)
        case .gathered:
            return (try send(gatherBuffer, gather(iovecCount), on: connection), requested)
        case .scattered:
            var message = msghdr()
            message.msg_iov = iovecs
            message.msg_iovlen = iovecCount
            return (try syscall("sendmsg") { clinux_sendmsg(connection.fd, &message, Int32(MSG_NOSIGNAL)) }, requested)
        }
    }

    /// One `send` of contiguous bytes. MSG_NOSIGNAL: a vanished peer is EPIPE here, never a process-killing SIGPIPE.
    func send(_ base: UnsafeRawPointer?, _ count: Int, on connection: Connection) throws(NetError) -> IOResult<Int> {
        try syscall("send") { clinux_send(connection.fd, base, count, Int32(MSG_NOSIGNAL)) }
    }

    /// Copies the first `count` iovecs, one after another, into the gather buffer; returns the bytes copied.
    private func gather(_ count: Int) -> Int {
        var length = 0
        for index in 0..<count {
            let piece = iovecs[index]
            (gatherBuffer + length).copyMemory(from: piece.iov_base!, byteCount: piece.iov_len)
            length += piece.iov_len
        }
        return length
    }

    func armWritable(_ connection: Connection) {
        guard !connection.wantsWritable else { return }
        connection.wantsWritable = true
        updateInterest(of: connection)
    }

    /// Enqueues `frame` on each handle's connection if it is still open here; stale handles are skipped.
    func deliver(_ frame: SharedBytes, to handles: [ConnectionHandle]) {
        for handle in handles {
            connection(for: handle)?.write(frame)
        }
    }
}
