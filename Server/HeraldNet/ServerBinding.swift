/// One server's presence on one loop: its listener there, its handler factory, how many of its
/// connections the loop holds, and its shutdown progress. Loop-confined.
final class ServerBinding {
    let config: ServerConfig
    let handlerFactory: @Sendable (Connection) -> any ConnectionHandler
    let server: ServerLifecycle
    /// This loop's listening socket (SO_REUSEPORT: one per loop), nil once closed.
    var listenerFD: Int32?
    /// The listener is out of epoll until the next tick because accept hit EMFILE/ENFILE.
    var listenerPaused = false
    var connectionCount = 0
    /// Set when shutdown begins: connections left at this tick are closed without waiting.
    var shutdownDeadline: Tick?
    var hasReportedStopped = false

    init(
        config: ServerConfig, handlerFactory: @escaping @Sendable (Connection) -> any ConnectionHandler,
        server: ServerLifecycle, listenerFD: Int32
    ) {
        self.config = config
        self.handlerFactory = handlerFactory
        self.server = server
        self.listenerFD = listenerFD
    }
}

@available(*, unavailable)
extension ServerBinding: Sendable {}
