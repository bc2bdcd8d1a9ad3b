import HeraldNet
import Logging
import Synchronization

/// Once upgraded, the session is its connection's handler (``Connection/replaceHandler(with:)``): the HTTP handler
/// gives way, so an open WebSocket costs a connection and a session and nothing in between. These are HeraldNet's
/// calls on the loop thread, not for the application.
extension WebSocketSession: ConnectionHandler {
    public func connectionDidRead(_ connection: Connection, _ bytes: UnsafeRawBufferPointer) {
        receive(bytes)
    }

    public func connectionTimerTick(_ connection: Connection, now: Tick) {
        timerTick(now: now)
    }

    public func connectionShouldShutDown(_ connection: Connection) {
        shutDown()
    }

    /// Closes the books the HTTP handler opened (the open-connection count, the per-IP slot, the session gauge),
    /// then tells the delegate.
    public func connectionDidClose(_ connection: Connection) {
        context.connectionClosed(connection, admitted: isAdmitted, route: route)
        context.metrics.webSocketSessions.subtract(1)
        transportDidClose()
    }
}
