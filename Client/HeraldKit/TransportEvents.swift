import HeraldClient
import Synchronization

/// Where a ``HeraldTransport``'s connection reports what happened to it. Call from any thread: each report is kept
/// in order and wakes the session.
public final class TransportEvents: Sendable {
    struct Inbox {
        var opened = false
        /// The loop took the opening (the WebSocket handshake has started).
        var openingTaken = false
        var bytes: [UInt8] = []
        /// Set once the connection ended: nil for a clean end, else why it failed.
        var end: String??
    }

    let inbox = Mutex(Inbox())
    private let wake: @Sendable () -> Void

    init(wake: @escaping @Sendable () -> Void) {
        self.wake = wake
    }

    /// The connection is up: the session starts the WebSocket handshake.
    public func opened() {
        inbox.withLock { $0.opened = true }
        wake()
    }

    /// The server sent these bytes.
    public func received(_ bytes: [UInt8]) {
        guard !bytes.isEmpty else { return }
        inbox.withLock { $0.bytes += bytes }
        wake()
    }

    /// The connection ended: cleanly (`error` nil) or because of `error`. Later reports are ignored.
    public func closed(error: String?) {
        inbox.withLock { inbox in
            if inbox.end == nil { inbox.end = .some(error) }
        }
        wake()
    }
}

/// The client loop's view of an app's connection: what the app reported, taken in order on the loop's thread.
final class InjectedByteStream: ClientByteStream {
    private let events: TransportEvents
    private let connection: any TransportConnection

    init(events: TransportEvents, connection: any TransportConnection) {
        self.events = events
        self.connection = connection
    }

    let pollDescriptor: Int32 = -1
    let wantsWrite = false
    let tlsVersion: String? = nil
    let peerClosed = false

    var hasPendingInput: Bool {
        events.inbox.withLock { ($0.opened && !$0.openingTaken) || !$0.bytes.isEmpty || $0.end != nil }
    }

    var isOpen: Bool { events.inbox.withLock(\.opened) }

    func connectFailure() -> String? {
        events.inbox.withLock { inbox in
            guard !inbox.opened, let end = inbox.end else { return nil }
            return end ?? "the connection closed before it opened"
        }
    }

    func start() throws(ClientTransport.Failure) {
        events.inbox.withLock { $0.openingTaken = true }
    }

    func send(_ bytes: inout [UInt8]) throws(ClientTransport.Failure) {
        guard !bytes.isEmpty else { return }
        connection.send(bytes)
        bytes.removeAll(keepingCapacity: true)
    }

    func flush() throws(ClientTransport.Failure) {}

    func read(into bytes: inout [UInt8]) throws(ClientTransport.Failure) -> ClientTransport.ReadResult {
        let (taken, end) = events.inbox.withLock { inbox in
            defer { inbox.bytes = [] }
            return (inbox.bytes, inbox.end)
        }
        // Bytes first: an end reported with them is read on the next round (the inbox still holds it).
        if !taken.isEmpty {
            bytes += taken
            return .bytes(taken.count)
        }
        switch end {
        case nil: return .nothing
        case .some(nil): return .ended
        case .some(.some(let reason)): throw .stream(reason)
        }
    }

    func close() {
        connection.close()
    }
}
