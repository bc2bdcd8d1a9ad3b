import CLinux

/// The periodic sweep and server lifecycle on a loop: one timerfd per loop, and each tick
/// compares every connection's `nextDeadline` with the cached clock. No per-connection timers.
extension EventLoop {
    func sweep() {
        let now = self.now
        for binding in bindings {
            resumeListener(of: binding)
            if let deadline = binding.shutdownDeadline, deadline <= now {
                // Grace period over: whoever has not finished their goodbye is closed now.
                for connection in live where connection.binding === binding {
                    scheduleClose(connection)
                }
            }
        }
        var position = 0
        while position < live.count {
            let connection = live[position]
            position += 1
            // A queue that drained since the last tick gives its chunk list back: an idle connection keeps none, and a
            // busy one pays one small allocation a tick, not one a write.
            connection.output.releaseStorageIfEmpty()
            guard connection.isOpenOrDraining,
                let deadline = connection.nextDeadline, deadline <= now
            else { continue }
            connection.handler?.connectionTimerTick(connection, now: now)
        }
    }

    /// Uses a finer tick if `milliseconds` is below the current one.
    func useTick(atMost milliseconds: Int) {
        let wanted = max(1, milliseconds)
        guard wanted < tickMilliseconds else { return }
        tickMilliseconds = wanted
        try? armTimer()
    }

    /// Adopts a server's listener on this loop (run on the loop thread by `TCPServer.start`).
    func attach(_ binding: ServerBinding) {
        bindings.append(binding)
        useTick(atMost: binding.config.tickMilliseconds)
        guard let fd = binding.listenerFD else { return }
        do {
            try register(fd, as: .listener(binding), events: CLINUX_EPOLLIN)
        } catch {
            binding.listenerFD = nil
            closeDescriptor(fd)
        }
    }

    /// Starts graceful shutdown of one server on this loop: stop accepting, ask each handler to say
    /// goodbye, and close whatever is left when the grace period ends.
    func beginShutdown(of server: ServerLifecycle, graceMilliseconds: Int) {
        guard let binding = bindings.first(where: { $0.server === server }), binding.shutdownDeadline == nil else { return }
        binding.shutdownDeadline = now.adding(milliseconds: Int64(graceMilliseconds))
        closeListener(of: binding)
        var position = 0
        while position < live.count {
            let connection = live[position]
            position += 1
            if connection.binding === binding, connection.state == .open {
                connection.handler?.connectionShouldShutDown(connection)
            }
        }
        reportIfStopped(binding)
    }

    /// Tells the server this loop is done with it once shutdown began and its last connection closed.
    func reportIfStopped(_ binding: ServerBinding) {
        guard binding.shutdownDeadline != nil, binding.connectionCount == 0, !binding.hasReportedStopped else { return }
        binding.hasReportedStopped = true
        bindings.removeAll { $0 === binding }
        binding.server.loopDidStop()
    }
}
