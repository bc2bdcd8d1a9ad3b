import CLinux
import Glibc
import HeraldTLS

/// Accepting, reading and closing connections. All loop-confined.
extension EventLoop {
    /// Accepts at most this many connections per listener wakeup, so a connect storm cannot starve
    /// established connections; level-triggered epoll reports the listener again if more are waiting.
    static let maxAcceptsPerWakeup = 64

    func acceptConnections(for binding: ServerBinding) {
        guard let listenerFD = binding.listenerFD, !binding.listenerPaused else { return }
        for _ in 0..<Self.maxAcceptsPerWakeup {
            var storage = sockaddr_storage()
            var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
            let result: IOResult<Int32>
            do throws(NetError) {
                result = try syscall("accept4") {
                    withUnsafeMutablePointer(to: &storage) {
                        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                            clinux_accept4(listenerFD, $0, &length, CLINUX_SOCK_NONBLOCK | CLINUX_SOCK_CLOEXEC)
                        }
                    }
                }
            } catch {
                switch error.errno {
                case EMFILE, ENFILE, ENOBUFS, ENOMEM:
                    // Out of descriptors: a level-triggered listener left armed would spin. Stop polling it
                    // until the next tick, when closes may have freed some.
                    counters.didRunOutOfDescriptors(errno: error.errno)
                    pauseListener(of: binding)
                    return
                case ECONNABORTED, EPROTO, EPERM:
                    continue  // that one connection failed; others may be waiting
                default:
                    return
                }
            }
            guard case .processed(let fd) = result else { return }
            adopt(fd, remoteAddress: SocketAddress.describe(&storage), binding: binding)
        }
    }

    private func adopt(_ fd: Int32, remoteAddress: String, binding: ServerBinding) {
        // Small frames (pings, chat messages) must not wait for Nagle's algorithm.
        try? Socket.setOption(fd, level: Int32(IPPROTO_TCP), name: TCP_NODELAY, value: 1, call: "setsockopt(TCP_NODELAY)")
        if let bytes = binding.config.socketSendBufferBytes {
            try? Socket.setOption(fd, level: SOL_SOCKET, name: SO_SNDBUF, value: Int32(clamping: bytes), call: "setsockopt(SO_SNDBUF)")
        }
        let position = Int(fd)
        let nextGeneration = (position < slots.count ? slots[position].generation : 0) &+ 1
        let handle = ConnectionHandle(loopIndex: index, fd: fd, generation: nextGeneration)
        var tls: TLSTransport?
        if let context = binding.config.tls {
            // The context current at accept: a certificate reload affects new connections only.
            guard let engine = try? TLSEngine(context: context.current) else {
                closeDescriptor(fd)
                return
            }
            tls = TLSTransport(engine: engine)
        }
        let connection = Connection(loop: self, handle: handle, remoteAddress: remoteAddress, binding: binding, tls: tls)
        do {
            try register(fd, as: .connection(.passUnretained(connection)), events: CLINUX_EPOLLIN | CLINUX_EPOLLET)
        } catch {
            closeDescriptor(fd)
            return
        }
        connection.liveIndex = live.count
        live.append(connection)
        binding.connectionCount += 1
        counters.didAccept()
        connection.handler = binding.handlerFactory(connection)
    }

    private func pauseListener(of binding: ServerBinding) {
        guard let fd = binding.listenerFD, !binding.listenerPaused else { return }
        binding.listenerPaused = true
        try? modify(fd, events: 0)
    }

    /// Called by the sweep: a paused listener goes back into epoll.
    func resumeListener(of binding: ServerBinding) {
        guard let fd = binding.listenerFD, binding.listenerPaused else { return }
        binding.listenerPaused = false
        try? modify(fd, events: CLINUX_EPOLLIN)
    }

    func closeListener(of binding: ServerBinding) {
        guard let fd = binding.listenerFD else { return }
        binding.listenerFD = nil
        slots[Int(fd)].occupant = .free
        closeDescriptor(fd)
    }

    // MARK: - Connection events

    func handle(_ connection: Connection, events: UInt32) {
        guard connection.isOpenOrDraining else { return }
        let hangUp = events & (CLINUX_EPOLLHUP | CLINUX_EPOLLERR) != 0
        if connection.wantsRead, events & CLINUX_EPOLLIN != 0 || hangUp {
            // On hang-up or error the read itself returns 0 or the error, after any bytes still buffered.
            readOnce(connection)
        } else if hangUp {
            scheduleClose(connection)
            return
        }
        if events & CLINUX_EPOLLOUT != 0 {
            scheduleWrite(connection)
        }
    }

    /// One read into the loop's shared buffer. A read that fills the buffer may have left more in the socket, which
    /// edge-triggered epoll does not report again: the connection goes on the list read again next pass.
    func readOnce(_ connection: Connection) {
        if let tls = connection.tls, tls.isPendingRead {
            // OpenSSL still holds records of earlier reads (a pass decrypts one slice of them): reading now would move
            // the peer's backlog out of the kernel, where TCP's window holds the peer back, into OpenSSL's buffer,
            // which nothing bounds. The socket is read once those records are handled.
            readAgainNextPass(connection)
            return
        }
        let result: IOResult<Int>
        do {
            result = try syscall("recv") { clinux_recv(connection.fd, readBuffer, readBufferSize) }
        } catch {
            scheduleClose(connection)  // ECONNRESET, ETIMEDOUT, ...: the peer is gone
            return
        }
        switch result {
        case .wouldBlock:
            return
        case .processed(0):
            // Peer finished sending: deliver what we still owe it, then close.
            connection.close(afterFlush: true)
        case .processed(let count):
            counters.didRead(count)
            if count == readBufferSize { readAgainNextPass(connection) }
            let bytes = UnsafeRawBufferPointer(start: readBuffer, count: count)
            if let tls = connection.tls {
                receiveTLS(bytes, on: connection, tls)
            } else {
                corking(connection) { connection.handler?.connectionDidRead(connection, bytes) }
            }
        }
    }

    /// Puts the connection on the list read again next pass without an event (edge-triggered epoll reports only bytes
    /// that arrive later, not those still waiting in the socket).
    private func readAgainNextPass(_ connection: Connection) {
        guard !connection.mayHaveMoreInput else { return }
        connection.mayHaveMoreInput = true
        pendingSocketReads.append(connection)
    }

    /// Reads once more from each connection whose last read filled the buffer (one buffer each, as for an event), or
    /// that waited for its TLS records to be decrypted; those that need it go back on the list for the next pass.
    func readPendingSockets() {
        takeEach(from: \.pendingSocketReads) { connection in
            connection.mayHaveMoreInput = false
            // Paused or closing: resuming re-arms EPOLLIN, and epoll then reports what is waiting.
            guard connection.state == .open, connection.wantsRead else { return }
            readOnce(connection)
        }
    }

    func stopReading(_ connection: Connection) {
        guard connection.wantsRead else { return }
        connection.wantsRead = false
        updateInterest(of: connection)
    }

    func updateInterest(of connection: Connection) {
        let events = (connection.wantsRead ? CLINUX_EPOLLIN : 0) | (connection.wantsWritable ? CLINUX_EPOLLOUT : 0) | CLINUX_EPOLLET
        do {
            try modify(connection.fd, events: events)
        } catch {
            scheduleClose(connection)
        }
    }

    // MARK: - Deferred close

    /// Marks `connection` for closing after the current batch; queued output is dropped.
    func scheduleClose(_ connection: Connection) {
        guard connection.isOpenOrDraining else { return }
        connection.state = .closing
        pendingCloses.append(connection)
    }

    /// Closes every marked connection and tells its handler. Handlers may mark more while this runs.
    func closePendingConnections() {
        var position = 0
        while position < pendingCloses.count {
            let connection = pendingCloses[position]
            position += 1
            finishClosing(connection)
        }
        pendingCloses.removeAll(keepingCapacity: true)
    }

    private func finishClosing(_ connection: Connection) {
        closeDescriptor(connection.fd)  // also removes it from the epoll set
        slots[Int(connection.fd)].occupant = .free
        let last = live.removeLast()
        if last !== connection {
            live[connection.liveIndex] = last
            last.liveIndex = connection.liveIndex
        }
        connection.state = .closed
        connection.output.removeAll()
        connection.nextDeadline = nil
        let handler = connection.handler
        connection.handler = nil  // breaks the handler ↔ connection cycle
        handler?.connectionDidClose(connection)
        connection.userData = nil
        let binding = connection.binding
        binding.connectionCount -= 1
        reportIfStopped(binding)
    }
}
