import CLibPQ
import Foundation
import HeraldStore

/// Listens on PostgreSQL for "user X's stream advanced to N" (what ``PostgresStore/appendEvent(user:payload:now:)``
/// notifies on commit) and hands each one to a callback: the cross-node fan-out of several `herald-server` nodes.
///
/// The notification carries no payload: the node reads the events its connected devices need from the store.
/// It runs its own connection on its own thread (a LISTEN connection must be read whenever the server sends,
/// which the sync thread, asleep in its inbox, cannot do). When that connection is lost it reconnects and reports
/// ``Signal/reconnected``: notifications sent meanwhile are gone, so the node catches its devices up from the
/// stream, which never loses anything.
public final class PostgresStreamListener: StoreSignalFeed, @unchecked Sendable {
    // @unchecked: `stopping` is guarded by `lock`; the connection lives on the listener thread only.

    /// What the listener reports.
    public typealias Signal = StoreSignal

    private let url: String
    private let onSignal: @Sendable (Signal) -> Void
    private let lock = NSLock()
    private var stopping = false
    private let finished = DispatchSemaphore(value: 0)
    private var started = false

    /// - Parameters:
    ///   - url: the same connection string as the store's.
    ///   - onSignal: called on the listener thread, in arrival order; must not block.
    public init(url: String, onSignal: @escaping @Sendable (Signal) -> Void) {
        self.url = url
        self.onSignal = onSignal
    }

    /// Starts the listener thread.
    public func start() {
        lock.lock()
        defer { lock.unlock() }
        guard !started else { return }
        started = true
        let thread = Thread { [self] in run() }
        thread.name = "herald-pg-listen"
        thread.start()
    }

    /// Stops the thread (within a quarter second) and closes its connection. Idempotent.
    public func stop() {
        lock.lock()
        let wasRunning = started && !stopping
        stopping = true
        lock.unlock()
        if wasRunning { finished.wait() }
    }

    private var isStopping: Bool {
        lock.lock()
        defer { lock.unlock() }
        return stopping
    }

    private func run() {
        defer { finished.signal() }
        var retryDelay = 0.05
        while !isStopping {
            guard let connection = listen() else {
                Thread.sleep(forTimeInterval: retryDelay)
                retryDelay = min(retryDelay * 2, 1)
                continue
            }
            retryDelay = 0.05
            onSignal(.reconnected)
            receive(on: connection)
            PQfinish(connection)
        }
    }

    /// A connection that LISTENs on the stream channel, or nil.
    private func listen() -> OpaquePointer? {
        guard let connection = PQconnectdb(url) else { return nil }
        guard PQstatus(connection) == CONNECTION_OK, let result = PQexec(connection, "LISTEN \(PostgresStore.streamChannel); LISTEN \(PostgresStore.pushChannel)") else {
            PQfinish(connection)
            return nil
        }
        let ok = PQresultStatus(result) == PGRES_COMMAND_OK
        PQclear(result)
        guard ok else {
            PQfinish(connection)
            return nil
        }
        return connection
    }

    /// Delivers notifications until the connection fails or the listener stops.
    private func receive(on connection: OpaquePointer) {
        var descriptor = pollfd(fd: PQsocket(connection), events: Int16(POLLIN), revents: 0)
        while !isStopping {
            let ready = poll(&descriptor, 1, 250)
            if ready < 0 && errno != EINTR { return }
            if ready <= 0 { continue }
            guard PQconsumeInput(connection) == 1, PQstatus(connection) == CONNECTION_OK else { return }
            while let notification = PQnotifies(connection) {
                if let extra = notification.pointee.extra {
                    let payload = String(cString: extra)
                    let isPush = notification.pointee.relname.map { String(cString: $0) == PostgresStore.pushChannel } ?? false
                    if let signal = isPush ? Self.parsePush(payload) : Self.parse(payload) { onSignal(signal) }
                }
                PQfreemem(notification)
            }
        }
    }

    /// "<seq> <user>" as ``PostgresStore`` sends it.
    static func parse(_ payload: String) -> Signal? {
        guard let space = payload.firstIndex(of: " "), let seq = Int64(payload[..<space]), seq > 0 else { return nil }
        let user = String(payload[payload.index(after: space)...])
        guard !user.isEmpty else { return nil }
        return .advanced(user: user, seq: seq)
    }

    /// "push <node> <device key> <message key>" or "clear <node> <device key> <conversation key> <message key>", as
    /// ``PostgresStore/requestPush(node:deviceKey:message:)`` and ``PostgresStore/withdrawPushes(message:user:now:)`` send it.
    static func parsePush(_ payload: String) -> Signal? {
        let fields = payload.split(separator: " ", omittingEmptySubsequences: false)
        // "signout <user> <device or nothing>" (``PostgresStore/signOut(user:device:issuedBefore:)``); ids hold no spaces.
        if fields.count == 3, fields[0] == "signout", !fields[1].isEmpty {
            return .signedOut(user: String(fields[1]), device: fields[2].isEmpty ? nil : String(fields[2]))
        }
        guard fields.count >= 4, !fields[1].isEmpty, let deviceKey = Int64(fields[2]) else { return nil }
        let node = String(fields[1])
        switch (fields[0], fields.count) {
        case ("push", 4):
            guard let message = Int64(fields[3]), message > 0 else { return nil }
            return .push(node: node, deviceKey: deviceKey, message: RecordID.format(RecordID.message, message))
        case ("clear", 5):
            guard let conversation = Int64(fields[3]), conversation > 0, let message = Int64(fields[4]), message > 0 else { return nil }
            return .pushCleared(
                node: node, deviceKey: deviceKey, conversation: RecordID.format(RecordID.conversation, conversation),
                message: RecordID.format(RecordID.message, message))
        default:
            return nil
        }
    }
}
