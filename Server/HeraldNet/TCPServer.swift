import Glibc
import HeraldBytes
import Synchronization

/// A TCP server on a `LoopGroup`: one SO_REUSEPORT listener per loop, so each loop accepts its own
/// connections and no descriptor crosses threads; a `ConnectionHandler` per connection does the rest.
///
/// ```swift
/// let server = try TCPServer(config: ServerConfig(port: 8080)) { _ in EchoHandler() }
/// try server.start()
/// print("listening on", server.boundPort!)
/// // ... later, from any thread:
/// server.shutdown()
/// server.waitUntilStopped()
/// ```
public final class TCPServer: Sendable {
    /// The configuration the server was created with.
    public let config: ServerConfig
    /// The loops the server's connections live on.
    public let group: LoopGroup

    private enum Phase { case created, running, stopping, stopped }
    private struct State {
        var phase = Phase.created
        var boundPort: UInt16?
    }

    private let ownsGroup: Bool
    private let handlerFactory: @Sendable (Connection) -> any ConnectionHandler
    private let lifecycle = ServerLifecycle()
    private let state = Mutex(State())

    /// Creates a server on an existing group. Nothing is bound until `start()`.
    ///
    /// - Parameters:
    ///   - config: Address, limits and timings.
    ///   - group: The loops to run on; the caller keeps ownership and shuts it down.
    ///   - handlerFactory: Makes the handler for each accepted connection, on that connection's loop thread.
    public init(config: ServerConfig, group: LoopGroup, handlerFactory: @escaping @Sendable (Connection) -> any ConnectionHandler) {
        self.config = config
        self.group = group
        self.ownsGroup = false
        self.handlerFactory = handlerFactory
    }

    /// Creates a server with its own group of `config.threads` loops, shut down with the server.
    public init(config: ServerConfig, handlerFactory: @escaping @Sendable (Connection) -> any ConnectionHandler) throws(NetError) {
        self.config = config
        self.group = try LoopGroup(threads: config.threads, tickMilliseconds: config.tickMilliseconds)
        self.ownsGroup = true
        self.handlerFactory = handlerFactory
    }

    /// The port the server listens on, once `start()` returned (the kernel's choice when `config.port` is 0).
    public var boundPort: UInt16? { state.withLock { $0.boundPort } }

    /// Binds and listens on every loop. When it returns the port accepts connections.
    public func start() throws(NetError) {
        let alreadyStarted = state.withLock { state -> Bool in
            guard state.phase == .created else { return true }
            state.phase = .running
            return false
        }
        guard !alreadyStarted else { throw NetError(errno: EINVAL, call: "TCPServer.start (already started)") }
        var listeners: [Int32] = []
        var port = config.port
        do {
            if port != 0 { try Socket.requireFree(host: config.host, port: port) }
            for _ in group.loops {
                let fd = try Socket.listen(on: SocketAddress(host: config.host, port: port), backlog: config.backlog)
                listeners.append(fd)
                if port == 0 { port = try SocketAddress.boundPort(of: fd) }
            }
        } catch {
            listeners.forEach(closeDescriptor)
            state.withLock { $0.phase = .stopped }
            lifecycle.markStoppedWithoutLoops()
            throw error
        }
        lifecycle.begin(loops: group.loops.count)
        for (loop, fd) in zip(group.loops, listeners) {
            let config = self.config
            let handlerFactory = self.handlerFactory
            let lifecycle = self.lifecycle
            loop.execute {
                loop.attach(ServerBinding(config: config, handlerFactory: handlerFactory, server: lifecycle, listenerFD: fd))
            }
        }
        state.withLock { $0.boundPort = port }
    }

    /// Begins graceful shutdown and returns at once: listeners close, every connection's handler gets
    /// `connectionShouldShutDown`, and connections still open after the grace period are closed.
    /// Use `waitUntilStopped()` to wait for the end.
    ///
    /// - Parameter graceMilliseconds: Overrides `config.shutdownGraceMilliseconds`.
    public func shutdown(graceMilliseconds: Int? = nil) {
        let phase = state.withLock { state -> Phase in
            let previous = state.phase
            switch previous {
            case .created: state.phase = .stopped
            case .running: state.phase = .stopping
            case .stopping, .stopped: break
            }
            return previous
        }
        switch phase {
        case .created:
            lifecycle.markStoppedWithoutLoops()
        case .running:
            let grace = graceMilliseconds ?? config.shutdownGraceMilliseconds
            let lifecycle = self.lifecycle
            for loop in group.loops {
                loop.execute { loop.beginShutdown(of: lifecycle, graceMilliseconds: grace) }
            }
        case .stopping, .stopped:
            return
        }
    }

    /// Blocks until shutdown finished on every loop (and, if the server owns its group, the loop
    /// threads have exited). Never call it from a loop thread.
    public func waitUntilStopped() {
        _ = lifecycle.wait(timeoutMilliseconds: nil)
        finish()
    }

    /// Like `waitUntilStopped()`, but gives up after `timeoutMilliseconds`. Returns true if stopped.
    public func waitUntilStopped(timeoutMilliseconds: Int) -> Bool {
        guard lifecycle.wait(timeoutMilliseconds: timeoutMilliseconds) else { return false }
        finish()
        return true
    }

    /// Fan-out from any thread; see `LoopGroup.send(_:to:)`.
    public func send(_ frame: SharedBytes, to handles: [ConnectionHandle]) {
        group.send(frame, to: handles)
    }

    private func finish() {
        state.withLock { $0.phase = .stopped }
        if ownsGroup { group.shutdown() }
    }
}
