/// The protocol layer on top of a `Connection`: HTTP, WebSocket, or a test's echo.
///
/// Every method is called on the connection's loop thread, so a handler needs no locks for its own
/// state. Handlers must never block: they share the thread with every other connection on the loop.
/// A handler usually keeps the `Connection` it was created for; the loop drops its reference to the
/// handler after `connectionDidClose`, which breaks that cycle.
public protocol ConnectionHandler: AnyObject {
    /// Bytes arrived. `bytes` points into the loop's shared read buffer and is valid only during the
    /// call: copy what must outlive it.
    func connectionDidRead(_ connection: Connection, _ bytes: UnsafeRawBufferPointer)

    /// The loop's periodic sweep found `connection.nextDeadline <= now`. Set a new deadline, or nil,
    /// or this is called again on the next tick.
    func connectionTimerTick(_ connection: Connection, now: Tick)

    /// The socket is closed (by either side, by the queue cap, or by shutdown). Called exactly once;
    /// writes are ignored from here on.
    func connectionDidClose(_ connection: Connection)

    /// The server is shutting down: write a goodbye (e.g. WebSocket close 1001) and call
    /// `connection.close(afterFlush: true)`. Connections still open when the grace period ends are closed.
    func connectionShouldShutDown(_ connection: Connection)
}
