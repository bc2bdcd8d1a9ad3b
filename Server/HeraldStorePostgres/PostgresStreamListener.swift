import CLibPQ
import Foundation
import HeraldStore

/// Listens on PostgreSQL for wake-ups (one NOTIFY per transaction another node committed, naming its
/// `stream_wakeups` row), reads the row and the event bodies it names in one query, and hands the result to a
/// callback: the cross-node fan-out, push requests, withdrawals and sign-outs of several `herald-server` nodes.
///
/// It runs its own connection on its own thread (a LISTEN connection must be read whenever the server sends, which
/// the sync thread, asleep in its inbox, cannot do), so the sync thread never waits on these reads. When that
/// connection is lost it reconnects, reports ``StoreSignal/reconnected`` (the node catches every device up from the
/// streams) and then reads the wake-up rows committed while it was away, so push requests and withdrawals are not
/// lost either. Each row is handled once: ids already handled are remembered for as long as rows are kept.
public final class PostgresStreamListener: StoreSignalFeed, @unchecked Sendable {
    // @unchecked: `stopping` and `started` are guarded by `lock`; everything else lives on the listener thread only.

    /// What the listener reports.
    public typealias Signal = StoreSignal

    private let url: String
    /// This node's id: its own wake-ups are skipped (it delivered its commits itself).
    private let node: String?
    private let onSignal: @Sendable (Signal) -> Void
    private let lock = NSLock()
    private var stopping = false
    private let finished = DispatchSemaphore(value: 0)
    private var started = false
    /// Wake-up ids handled, with their time (database clock, ms), to skip them when catching up.
    private var handled: [Int64: Int64] = [:]
    /// The newest wake-up time handled (or the first connection's time): catching up starts a margin before it.
    private var lastHandledAt: Int64?

    /// The `application_name` of the listener's session.
    public static let applicationName = "herald-listen"

    /// How far before the last wake-up handled a catch-up looks: a transaction stamps its row before it commits.
    static let catchUpMarginMilliseconds: Int64 = 10_000

    /// - Parameters:
    ///   - url: the same connection string as the store's.
    ///   - node: this node's cluster id (its own wake-ups are skipped); nil hears every writer.
    ///   - onSignal: called on the listener thread, in commit-notification order; must not block.
    public init(url: String, node: String? = nil, onSignal: @escaping @Sendable (Signal) -> Void) {
        self.url = url
        self.node = node
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
            if let node {
                // Other nodes judge this node alive by this session while its heartbeat is late.
                _ = query(connection, "UPDATE cluster_nodes SET listener_pid = pg_backend_pid() WHERE node_id = $1 RETURNING 1", [node]) { _ in () }
            }
            onSignal(.reconnected)
            catchUp(on: connection)
            receive(on: connection)
            PQfinish(connection)
            preparedOn = nil
        }
    }

    /// A connection that LISTENs on the wake-up channel, or nil.
    private func listen() -> OpaquePointer? {
        // Named, so an operator (or a test) can tell the LISTEN sessions apart in pg_stat_activity.
        let keywords = [strdup("dbname"), strdup("application_name"), nil]
        let values = [strdup(url), strdup(Self.applicationName), nil]
        defer { (keywords + values).forEach { free($0) } }
        let connection = keywords.map { UnsafePointer($0) }.withUnsafeBufferPointer { keys in
            values.map { UnsafePointer($0) }.withUnsafeBufferPointer { vals in PQconnectdbParams(keys.baseAddress, vals.baseAddress, 1) }
        }
        guard let connection else { return nil }
        guard PQstatus(connection) == CONNECTION_OK, let result = PQexec(connection, "LISTEN \(PostgresStore.wakeChannel)") else {
            PQfinish(connection)
            return nil
        }
        var ok = PQresultStatus(result) == PGRES_COMMAND_OK
        PQclear(result)
        // Typing and presence (E1, E2) ride on a channel of their own: the payload is the signal, nothing to read.
        if ok, let ephemeral = PQexec(connection, "LISTEN \(PostgresStore.ephemeralChannel)") {
            ok = PQresultStatus(ephemeral) == PGRES_COMMAND_OK
            PQclear(ephemeral)
        } else {
            ok = false
        }
        guard ok else {
            PQfinish(connection)
            return nil
        }
        return connection
    }

    /// Reads the wake-ups other nodes committed while this listener was away (LISTEN is already on, so nothing
    /// committed from now on can slip between the two). The first connection only notes the time.
    private func catchUp(on connection: OpaquePointer) {
        guard let since = lastHandledAt else {
            lastHandledAt = query(connection, "SELECT \(PostgresStore.databaseNow)", []) { row in row.int(0) }.first
            return
        }
        let rows = query(
            connection, "SELECT id, node_id FROM stream_wakeups WHERE created_at >= $1 ORDER BY id", ["\(since - Self.catchUpMarginMilliseconds)"]
        ) { row in (id: row.int(0), node: row.text(1)) }
        let missed = rows.filter { $0.node != node && handled[$0.id] == nil }.map(\.id)
        // In slices, so a long absence is not one huge result.
        for start in stride(from: 0, to: missed.count, by: 64) { wakeUps(Array(missed[start..<min(start + 64, missed.count)]), on: connection) }
    }

    /// Delivers wake-ups until the connection fails or the listener stops.
    private func receive(on connection: OpaquePointer) {
        var descriptor = pollfd(fd: PQsocket(connection), events: Int16(POLLIN), revents: 0)
        while !isStopping {
            // Notifications libpq already holds first: those that arrived while a wake-up was being read are in its
            // buffer, not on the socket, so poll would not report them.
            let ids = pendingWakeUps(connection)
            if !ids.isEmpty {
                let fresh = ids.filter { handled[$0] == nil }
                if !fresh.isEmpty { wakeUps(fresh, on: connection) }
                if PQstatus(connection) != CONNECTION_OK { return }
                continue
            }
            let ready = poll(&descriptor, 1, 250)
            if ready < 0 && errno != EINTR { return }
            if ready <= 0 { continue }
            guard PQconsumeInput(connection) == 1, PQstatus(connection) == CONNECTION_OK else { return }
        }
    }

    /// The wake-ups of other nodes among the notifications libpq has received.
    private func pendingWakeUps(_ connection: OpaquePointer) -> [Int64] {
        var ids: [Int64] = []
        while let notification = PQnotifies(connection) {
            if String(cString: notification.pointee.relname) == PostgresStore.ephemeralChannel {
                // Reported at once, in arrival order; a node's own signals are skipped like its own wake-ups.
                // One notification carries a batch of signals, a line each.
                if let extra = notification.pointee.extra {
                    for line in String(cString: extra).split(separator: "\n") {
                        if let signal = EphemeralSignal(payload: String(line)), signal.node != node { onSignal(.ephemeral(signal)) }
                    }
                }
                PQfreemem(notification)
                continue
            }
            if let extra = notification.pointee.extra, let wake = Self.parseWakeUp(String(cString: extra)), wake.node != node {
                ids.append(wake.id)
            }
            PQfreemem(notification)
        }
        return ids
    }

    /// Reads wake-up rows (their runs, their signals and every event body the runs name) in one query, and reports
    /// them in the order of `ids` (the notifications' order, which is commit order). Wake-ups that queued up while
    /// the previous ones were read cost one round trip together, not one each. A row comes back as it is stored,
    /// arrays and all (a group's 1,000 runs are four arrays, not 1,000 rows), with its bodies beside it. The members
    /// of a group share their runs' bodies, so the bodies are looked up by the distinct runs: 20 ids for a batch of
    /// 20 messages to 1,000 members, not 20,000.
    private func wakeUps(_ ids: [Int64], on connection: OpaquePointer) {
        struct WakeUp {
            var id: Int64 = 0
            var at: Int64 = 0
            var runs: [(user: String, firstSeq: Int64, firstBody: Int64, count: Int64)] = []
            var signals: [String] = []
            var bodies: [(id: Int64, payload: [UInt8])] = []
        }
        guard prepareWakeUpQuery(on: connection) else { return }
        let rows = query(connection, prepared: Self.wakeUpStatement, ["{" + ids.map(String.init).joined(separator: ",") + "}"]) { row -> WakeUp in
            // A row whose run arrays do not line up (never written by a node) still carries its signals.
            let users = row.textArray(0) ?? [], seqs = row.intArray(1) ?? [], firstBodies = row.intArray(2) ?? [], counts = row.intArray(3) ?? []
            var wake = WakeUp(id: row.int(8), at: row.int(5))
            if users.count == seqs.count, users.count == firstBodies.count, users.count == counts.count {
                wake.runs.reserveCapacity(users.count)
                for index in users.indices { wake.runs.append((users[index], seqs[index], firstBodies[index], counts[index])) }
            }
            wake.signals = row.textArray(4) ?? []
            // No bodies (all pruned, or none named): NULL arrays.
            if let ids = row.intArray(6), let payloads = row.blobArray(7), ids.count == payloads.count {
                wake.bodies = Array(zip(ids, payloads))
            }
            return wake
        }
        // A wake-up not there (yet, or any more) is not reported and not remembered, so a later catch-up may find it.
        for wake in rows {
            remember(wake.id, at: wake.at)
            if let batch = Self.streamRuns(wake.runs, bodies: wake.bodies) { onSignal(.streams(batch)) }
            for text in wake.signals {
                if let signal = Self.parseSignal(text) { onSignal(signal) }
            }
        }
    }

    /// The server-side name of the wake-up query on the listener's connection.
    static let wakeUpStatement = "herald_wake_ups"

    /// The wake-up query, parsed and planned once per connection (it is most of what a wake-up costs PostgreSQL).
    static let wakeUpQuery = """
        SELECT w.users, w.first_seqs, w.first_bodies, w.counts, w.signals, w.created_at, b.ids, b.payloads, w.id
        FROM stream_wakeups w LEFT JOIN LATERAL (
            SELECT array_agg(e.id ORDER BY e.id) AS ids, array_agg(e.payload ORDER BY e.id) AS payloads
            FROM (SELECT DISTINCT r.b + g AS id FROM (SELECT DISTINCT x.b, x.n FROM unnest(w.first_bodies, w.counts) AS x(b, n)) r,
                  generate_series(0, r.n - 1) AS g) wanted
            -- One primary-key lookup per body (LIMIT keeps the planner from a hash join over the whole table).
            CROSS JOIN LATERAL (SELECT id, payload FROM event_bodies WHERE id = wanted.id LIMIT 1) e
        ) b ON true
        WHERE w.id = ANY($1::bigint[])
        ORDER BY array_position($1::bigint[], w.id)
        """

    /// The connection the wake-up query is prepared on (a new connection after a reconnect needs it again).
    private var preparedOn: OpaquePointer?

    private func prepareWakeUpQuery(on connection: OpaquePointer) -> Bool {
        if preparedOn == connection { return true }
        guard let result = PQprepare(connection, Self.wakeUpStatement, Self.wakeUpQuery, 0, nil) else { return false }
        defer { PQclear(result) }
        guard PQresultStatus(result) == PGRES_COMMAND_OK else { return false }
        preparedOn = connection
        return true
    }

    /// The runs with their bodies as indexes into the sorted, distinct `bodies`. A run whose bodies are gone (pruned)
    /// is left out: its devices catch up from the stream when they next see a gap.
    static func streamRuns(_ runs: [(user: String, firstSeq: Int64, firstBody: Int64, count: Int64)], bodies: [(id: Int64, payload: [UInt8])]) -> StreamRuns? {
        var index: [Int64: Int] = [:]
        for (position, body) in bodies.enumerated() { index[body.id] = position }
        var result: [StreamRuns.Run] = []
        for run in runs where run.count > 0 {
            // A run's body ids are consecutive, so they are consecutive entries of the sorted distinct list.
            guard let first = index[run.firstBody], let last = index[run.firstBody + run.count - 1], last - first + 1 == Int(run.count) else { continue }
            result.append(StreamRuns.Run(user: run.user, firstSeq: run.firstSeq, firstBody: first, count: Int(run.count)))
        }
        guard !result.isEmpty else { return nil }
        return StreamRuns(runs: result, bodies: bodies.map(\.payload))
    }

    /// Remembers a handled wake-up and forgets those older than the rows' retention.
    private func remember(_ id: Int64, at: Int64) {
        handled[id] = at
        lastHandledAt = max(lastHandledAt ?? at, at)
        if handled.count > 4_096, let newest = lastHandledAt {
            handled = handled.filter { $0.value >= newest - PostgresStore.wakeUpRetentionMilliseconds }
        }
    }

    /// Runs one statement with text parameters and binary results on the listener's connection; nothing on failure
    /// (a lost connection is noticed by the receive loop).
    private func query<T>(_ connection: OpaquePointer, _ sql: String, _ parameters: [String], row map: (PGRow) -> T) -> [T] {
        resultRows(parameters, map) { values in PQexecParams(connection, sql, Int32(values.count), nil, values, nil, nil, 1) }
    }

    /// The same, for a statement prepared on this connection.
    private func query<T>(_ connection: OpaquePointer, prepared name: String, _ parameters: [String], row map: (PGRow) -> T) -> [T] {
        resultRows(parameters, map) { values in PQexecPrepared(connection, name, Int32(values.count), values, nil, nil, 1) }
    }

    /// Passes `parameters` as C strings to `execute` and maps the rows of its result (none on failure).
    private func resultRows<T>(_ parameters: [String], _ map: (PGRow) -> T, _ execute: ([UnsafePointer<CChar>?]) -> OpaquePointer?) -> [T] {
        let cStrings = parameters.map { strdup($0) }
        defer { cStrings.forEach { free($0) } }
        let values: [UnsafePointer<CChar>?] = cStrings.map { UnsafePointer($0) }
        guard let result = execute(values) else { return [] }
        defer { PQclear(result) }
        guard PQresultStatus(result) == PGRES_TUPLES_OK else { return [] }
        return (0..<PQntuples(result)).map { map(PGRow(result: result, row: $0)) }
    }

    /// "<id> <node>" as ``PostgresStore`` notifies it.
    static func parseWakeUp(_ payload: String) -> (id: Int64, node: String)? {
        guard let space = payload.firstIndex(of: " "), let id = Int64(payload[..<space]), id > 0 else { return nil }
        return (id, String(payload[payload.index(after: space)...]))
    }

    /// "push <node> <device key> <message key>", "bell <node> <device key> <notification key>", "clear <node> <device key> <conversation key> <message key>",
    /// "signout <user> <device or nothing>" or "published <message key>", as the store adds them to a wake-up.
    static func parseSignal(_ payload: String) -> Signal? {
        let fields = payload.split(separator: " ", omittingEmptySubsequences: false)
        // "signout <user> <device or nothing>" (``PostgresStore/signOut(user:device:issuedBefore:)``); ids hold no spaces.
        if fields.count == 3, fields[0] == "signout", !fields[1].isEmpty {
            return .signedOut(user: String(fields[1]), device: fields[2].isEmpty ? nil : String(fields[2]))
        }
        // "published <message key>" (herald_send_message).
        if fields.count == 2, fields[0] == "published", let message = Int64(fields[1]), message > 0 {
            return .published(message: RecordID.format(RecordID.message, message))
        }
        guard fields.count >= 4, !fields[1].isEmpty, let deviceKey = Int64(fields[2]) else { return nil }
        let node = String(fields[1])
        switch (fields[0], fields.count) {
        case ("push", 4):
            guard let message = Int64(fields[3]), message > 0 else { return nil }
            return .push(node: node, deviceKey: deviceKey, message: RecordID.format(RecordID.message, message))
        case ("bell", 4):
            guard let notification = Int64(fields[3]), notification > 0 else { return nil }
            return .bellPush(node: node, deviceKey: deviceKey, notification: RecordID.format(RecordID.notification, notification))
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
