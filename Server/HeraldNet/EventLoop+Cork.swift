/// The reply cork: what a handler writes to a plain connection while the loop hands it that connection's input is
/// copied into one loop-wide buffer and sent with one `send` as soon as the handler returns, instead of being queued
/// for the end of the pass.
///
/// Why: a request/response connection (an echo, an acknowledgement, an HTTP answer) writes one small reply per
/// read. Through the write queue each reply took a block from the pool, a place on the pending list, an iovec fill
/// and a consume before its `send`; the kernel's work is the same either way, and that user-space round was most of
/// what Herald spent above uWebSockets per echoed message (perf, BENCHMARKS.md). uWebSockets corks the same way.
///
/// The rules that keep the byte order every connection promises:
/// - corking starts only for a plain connection with nothing queued, so nothing is ahead of the cork;
/// - a write that does not fit (or any write while something is queued) first moves the cork's bytes into the
///   queue, and the connection is not corked again until its next read: the queue then keeps the order;
/// - `writeNow` to a corked connection goes through the cork like any write, and a close after flush moves the
///   cork's bytes into the queue first (a close without flush drops them with the rest);
/// - what the kernel does not take when the cork is sent is queued, and EPOLLOUT brings the connection back.
extension EventLoop {
    /// Runs `body` (a handler's turn with a read of `connection`) with `connection` corked when it can be.
    @inline(__always)
    func corking(_ connection: Connection, _ body: () -> Void) {
        guard connection.tls == nil, connection.output.isEmpty, !connection.wantsWritable else {
            body()
            return
        }
        corkOwner = Unmanaged.passUnretained(connection).toOpaque()
        body()
        corkOwner = nil
        if corkLength > 0 { sendCork(on: connection) }
    }

    /// Whether writes to `connection` are being corked now.
    @inline(__always)
    func isCorking(_ connection: Connection) -> Bool {
        corkOwner == Unmanaged.passUnretained(connection).toOpaque()
    }

    /// Bytes the cork holds for `connection`: part of its queue for the slow-consumer rule.
    @inline(__always)
    func corkedBytes(of connection: Connection) -> Int {
        isCorking(connection) ? corkLength : 0
    }

    /// Room for `count` more bytes in the cork, or nil when they do not fit. The caller has checked `isCorking`.
    @inline(__always)
    func reserveCork(_ count: Int) -> UnsafeMutableRawPointer? {
        guard count <= corkCapacity - corkLength else { return nil }
        defer { corkLength += count }
        return corkBuffer + corkLength
    }

    /// Ends corking for `connection` until its next read; what the cork holds moves into its queue (`keep`) or is
    /// dropped (a close without flush).
    func uncork(_ connection: Connection, keep: Bool) {
        guard isCorking(connection) else { return }
        corkOwner = nil
        guard corkLength > 0 else { return }
        if keep {
            connection.output.append(UnsafeRawBufferPointer(start: corkBuffer, count: corkLength))
            scheduleWrite(connection)
        }
        corkLength = 0
    }

    /// Sends what the cork holds for `connection` (no longer the owner); queues what the kernel does not take.
    private func sendCork(on connection: Connection) {
        let count = corkLength
        corkLength = 0
        guard connection.isOpenOrDraining else { return }  // closed meanwhile without flush: dropped like its queue
        let result: IOResult<Int>
        do {
            result = try send(corkBuffer, count, on: connection)
        } catch {
            scheduleClose(connection)  // EPIPE, ECONNRESET: the peer is gone
            return
        }
        var sent = 0
        if case .processed(let taken) = result {
            counters.didWrite(taken)
            sent = taken
        }
        guard sent < count else { return }
        connection.output.append(UnsafeRawBufferPointer(start: corkBuffer + sent, count: count - sent))
        armWritable(connection)  // the socket is full: EPOLLOUT brings it back to the flush
    }
}
