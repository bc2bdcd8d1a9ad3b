import Glibc
import HeraldNet
import Synchronization

/// What the server told the test's handlers, readable from the test thread.
final class ServerEvents: Sendable {
    struct State {
        var opened: [ConnectionHandle] = []
        var closed: [ConnectionHandle] = []
        var shutdownRequests: [ConnectionHandle] = []
        /// (handle, deadline, now) for each timer tick.
        var timerTicks: [(ConnectionHandle, Tick, Tick)] = []
        var bytesRead = 0
    }

    let state = Mutex(State())

    func update(_ change: (inout State) -> Void) { state.withLock { change(&$0) } }

    func read<Value: Sendable>(_ query: (State) -> Value) -> Value { state.withLock { query($0) } }

    /// Polls `condition` every millisecond until it holds or `timeoutMilliseconds` pass.
    /// - Returns: whether the condition held in time.
    func waitUntil(timeoutMilliseconds: Int = 10_000, _ condition: (State) -> Bool) -> Bool {
        waitFor(timeoutMilliseconds: timeoutMilliseconds) { state.withLock { condition($0) } }
    }
}

/// Polls `condition` until it holds or the deadline passes; the only waiting tests do.
func waitFor(timeoutMilliseconds: Int = 10_000, _ condition: () -> Bool) -> Bool {
    let deadline = Tick.monotonicNow().adding(milliseconds: Int64(timeoutMilliseconds))
    while Tick.monotonicNow() < deadline {
        if condition() { return true }
        usleep(1000)
    }
    return condition()
}

/// How the test handler behaves beyond echoing.
struct HandlerOptions: Sendable {
    /// Echo read bytes back.
    var echo = true
    /// Set a deadline this far in the future on open, and write "T" when it fires.
    var timerDelayMilliseconds: Int64?
    /// On shutdown request: write "BYE" and close after flush (otherwise ignore it).
    var sayGoodbyeOnShutdown = true
    /// Called on the loop thread after each read is recorded (and echoed).
    var onRead: (@Sendable (Connection) -> Void)?
}

/// The test's protocol layer: an echo server that records every callback in `ServerEvents`.
final class EchoHandler: ConnectionHandler {
    let events: ServerEvents
    let options: HandlerOptions

    init(_ connection: Connection, events: ServerEvents, options: HandlerOptions) {
        self.events = events
        self.options = options
        if let delay = options.timerDelayMilliseconds {
            connection.nextDeadline = connection.loop.now.adding(milliseconds: delay)
        }
        let handle = connection.handle
        events.update { $0.opened.append(handle) }
    }

    func connectionDidRead(_ connection: Connection, _ bytes: UnsafeRawBufferPointer) {
        events.update { $0.bytesRead += bytes.count }
        if options.echo { connection.write(bytes) }
        options.onRead?(connection)
    }

    func connectionTimerTick(_ connection: Connection, now: Tick) {
        let handle = connection.handle
        let deadline = connection.nextDeadline ?? now
        events.update { $0.timerTicks.append((handle, deadline, now)) }
        connection.nextDeadline = nil
        connection.write(Array("T".utf8))
    }

    func connectionDidClose(_ connection: Connection) {
        let handle = connection.handle
        events.update { $0.closed.append(handle) }
    }

    func connectionShouldShutDown(_ connection: Connection) {
        let handle = connection.handle
        events.update { $0.shutdownRequests.append(handle) }
        guard options.sayGoodbyeOnShutdown else { return }
        connection.write(Array("BYE".utf8))
        connection.close(afterFlush: true)
    }
}

/// Starts an echo server on 127.0.0.1 with an ephemeral port and its own loops.
func startEchoServer(
    threads: Int = 2, tickMilliseconds: Int = 10, maxQueuedBytes: Int = 4 << 20,
    options: HandlerOptions = HandlerOptions()
) throws -> (TCPServer, ServerEvents, UInt16) {
    let events = ServerEvents()
    let config = ServerConfig(
        host: "127.0.0.1", port: 0, threads: threads, tickMilliseconds: tickMilliseconds,
        maxQueuedBytesPerConnection: maxQueuedBytes)
    let server = try TCPServer(config: config) { connection in
        EchoHandler(connection, events: events, options: options)
    }
    try server.start()
    guard let port = server.boundPort, port != 0 else { throw ClientError(errno: 0, call: "boundPort") }
    return (server, events, port)
}

/// Stops a test server and fails loudly if that takes more than a few seconds.
func stop(_ server: TCPServer) -> Bool {
    server.shutdown(graceMilliseconds: 500)
    return server.waitUntilStopped(timeoutMilliseconds: 5000)
}
