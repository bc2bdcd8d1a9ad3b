import Foundation
import HeraldClock

/// Many devices on one ``BenchLoop``: connects them (a bounded number of handshakes at a time), syncs each,
/// and runs setup requests whose responses are decoded with Foundation. During the measured phase it hands
/// every frame to the load it was told to ``listen(_:)`` to.
final class Fleet: BenchLoopDelegate {
    let loop: BenchLoop
    let tokens: TokenSource
    /// Device index → user id.
    let deviceUsers: [String]
    private(set) var connections: [BenchConnection]
    /// Device index → its `latest` from the sync response.
    private(set) var latest: [Int64]
    private(set) var synced = 0
    private(set) var failures: [String] = []
    /// Setup requests awaiting a response, by device and request id.
    private var pending: [Int: [Int: ([String: Any]) -> Void]] = [:]
    private var pendingCount = 0
    /// Measured phase: the load that hears every frame of every device (``listen(_:)``). Not counted: references
    /// counted per frame (a closure's context, an unowned capture) were ~10% of the generator's CPU in a /sync
    /// fan-out, where the generator's CPU per delivery limits the measurement.
    private var listener: Unmanaged<MessageLoad>?
    /// Set once a measured phase begins: a connection that ends from then on is a drop, not a setup failure.
    private var measuredPhaseBegan = false
    /// Where the text of the last message event was, counted from its body: the next event's first guess.
    private var textOffsetHint = 0
    /// Connections that ended during the measured phase.
    private(set) var dropped = 0
    private let pathPrefix: String
    /// Tokens minted or fetched so far, by user.
    private(set) var tokenOf: [String: String] = [:]
    /// Per device, whether a `conversation` event reached it (a new conversation announced; read at any time, since
    /// the announcement may arrive in the same loop pass as the response to the request that created it).
    private(set) var heardOfConversation: [Bool]
    /// When the last event (not a response) arrived at any device.
    private(set) var lastEventAt: UInt64 = 0
    /// Events (not responses) that arrived outside the measured phase.
    private(set) var setupEvents = 0
    /// Per device, from the start of its TCP connect to its sync response (``connectAll(parallel:deadline:progress:)``).
    private(set) var connectLatency = LatencyHistogram()

    init(loop: BenchLoop, tokens: TokenSource, deviceUsers: [String], devicePrefix: String) {
        self.loop = loop
        self.tokens = tokens
        self.deviceUsers = deviceUsers
        connections = deviceUsers.indices.map { BenchConnection(tag: $0) }
        latest = [Int64](repeating: 0, count: deviceUsers.count)
        heardOfConversation = [Bool](repeating: false, count: deviceUsers.count)
        pathPrefix = "/sync?device=\(devicePrefix)"
        loop.delegate = self
    }

    /// Mints or fetches every user's token now, so that connecting is timed without it.
    func prepareTokens() throws(BenchError) {
        for user in deviceUsers where tokenOf[user] == nil { tokenOf[user] = try tokens.token(for: user) }
    }

    /// Connects and syncs every device, at most `parallel` handshakes at a time, within `deadline` (ns). With
    /// `progress`, a line a second on stderr says how many are synced and at what rate, so a long setup is not silent.
    func connectAll(parallel: Int = 200, deadline: UInt64, progress: Bool) throws(BenchError) {
        var next = 0
        let start = MonotonicClock.nanoseconds()
        var lastReport = start
        var syncedAtLastReport = 0
        while synced + failures.count < connections.count {
            while next < connections.count && next - synced - failures.count < parallel {
                let user = deviceUsers[next]
                let token: String
                if let cached = tokenOf[user] {
                    token = cached
                } else {
                    token = try tokens.token(for: user)
                    tokenOf[user] = token
                }
                connections[next].startedAt = MonotonicClock.nanoseconds()
                try loop.connect(connections[next], path: pathPrefix + String(loop.firstTag + next), token: token)
                next += 1
            }
            loop.runOnce(timeoutMs: 5)
            let now = MonotonicClock.nanoseconds()
            if let failure = failures.first { throw BenchError("device failed during setup: \(failure)") }
            if now > deadline { throw BenchError("setup timed out: \(synced) of \(connections.count) devices synced") }
            if progress && now - lastReport > 1_000_000_000 {
                let rate = Double(synced - syncedAtLastReport) / (Double(now - lastReport) / 1e9)
                let average = Double(synced) / (Double(now - start) / 1e9)
                Report.progress(String(
                    format: "[setup %5.1fs] %d/%d devices connected and synced, %.0f/s (%.0f/s since start), %d handshakes in progress",
                    Double(now - start) / 1e9, synced, connections.count, rate, average, next - synced - failures.count))
                lastReport = now
                syncedAtLastReport = synced
            }
        }
    }

    /// How many open connections come from each local address, as the kernel reports it (`getsockname`).
    func connectionsBySource() -> [String: Int] {
        var counts: [UInt32: Int] = [:]
        for connection in connections {
            if let address = connection.localAddress() { counts[address, default: 0] += 1 }
        }
        return Dictionary(uniqueKeysWithValues: counts.map { (SourceAddresses.text($0.key), $0.value) })
    }

    /// Keeps every device connected for `seconds`, answering whatever the server sends (pings); fails when one ends.
    func idle(seconds: Double) throws(BenchError) {
        let until = BenchRun.deadline(seconds)
        try idle { MonotonicClock.nanoseconds() >= until }
    }

    /// Keeps every device connected until `done()` (asked every 50 ms at most); fails when one ends.
    func idle(until done: () -> Bool) throws(BenchError) {
        while !done() {
            loop.runOnce(timeoutMs: 50)
            if let failure = failures.first { throw BenchError("device dropped while idle: \(failure)") }
        }
    }

    /// Runs the loop until every device in `devices` has received a `conversation` event and then no event has arrived
    /// for `quietSeconds`, so that a load in a new group is timed once the group has been announced to its members
    /// and not while the server still writes that out.
    func awaitAnnouncement(to devices: Range<Int>, quietSeconds: Double, deadline: UInt64) throws(BenchError) {
        let quiet = UInt64(quietSeconds * 1e9)
        while devices.contains(where: { !heardOfConversation[$0] }) || MonotonicClock.nanoseconds() &- lastEventAt < quiet {
            loop.runOnce(timeoutMs: 10)
            if let failure = failures.first { throw BenchError("device failed while the group was announced: \(failure)") }
            if MonotonicClock.nanoseconds() > deadline {
                let heard = devices.filter { heardOfConversation[$0] }.count
                throw BenchError("setup timed out: \(heard) of \(devices.count) members heard of the group")
            }
        }
    }

    /// Sends a setup request built from its id; `handler` gets the decoded response.
    func call(_ device: Int, _ make: (Int) -> String, handler: @escaping ([String: Any]) -> Void) {
        let connection = connections[device]
        let id = connection.nextRequestId
        connection.nextRequestId += 1
        pending[device, default: [:]][id] = handler
        pendingCount += 1
        connection.send(make(id))
        loop.markDirty(connection)
    }

    /// Runs the loop until every setup call has been answered.
    func waitForCalls(deadline: UInt64) throws(BenchError) {
        while pendingCount > 0 {
            loop.runOnce(timeoutMs: 5)
            if let failure = failures.first { throw BenchError("setup failed: \(failure)") }
            if MonotonicClock.nanoseconds() > deadline { throw BenchError("setup timed out waiting for \(pendingCount) responses") }
        }
    }

    /// Sends a measured-phase request and marks the connection for writing.
    func send(_ device: Int, _ text: String) {
        let connection = connections[device]
        connection.send(text)
        loop.markDirty(connection)
    }

    /// Closes every device (close frame, then the socket).
    func closeAll() {
        for connection in connections where connection.fd >= 0 {
            connection.startClose()
            _ = connection.flush()
            loop.drop(connection)
        }
    }

    // MARK: - BenchLoopDelegate

    func connectionOpened(_ connection: BenchConnection) {
        connection.nextRequestId = 2
        let tag = connection.tag
        // Not weak: a weak reference gives the fleet a side table, and then every retain of it (one per frame, as the
        // loop's delegate) takes the runtime's slow path. The handler lives in the fleet's own table and only the
        // fleet calls it, so the fleet is always there when it runs.
        pending[tag, default: [:]][1] = { [unowned(unsafe) self] response in
            if response["ok"] as? Bool == true {
                self.latest[tag] = (response["latest"] as? NSNumber)?.int64Value ?? 0
                self.synced += 1
                self.connectLatency.record(micros: (MonotonicClock.nanoseconds() &- self.connections[tag].startedAt) / 1000)
            } else {
                self.failures.append("device \(tag): sync refused: \(response["error"] ?? "?")")
            }
        }
        pendingCount += 1
        connection.send(SyncRequest.sync(id: 1))
        loop.markDirty(connection)
    }

    func connection(_ connection: BenchConnection, received text: UnsafeBufferPointer<UInt8>, at now: UInt64) {
        let scan = SyncFrameScan(text, textOffsetHint: &textOffsetHint)
        if scan.kind == .response, let id = scan.requestId, let handler = pending[connection.tag]?.removeValue(forKey: id) {
            pendingCount -= 1
            let object = (try? JSONSerialization.jsonObject(with: Data(buffer: text))) as? [String: Any] ?? [:]
            handler(object)
            return
        }
        if scan.kind == .conversationEvent { heardOfConversation[connection.tag] = true }
        if let listener { return listener._withUnsafeGuaranteedRef { $0.handle(connection, scan, now) } }
        lastEventAt = now
        setupEvents += 1
    }

    /// Hands every frame to `load` from now on, until `listen(nil)`; `load` must outlive that (its `run` does both).
    func listen(_ load: MessageLoad?) {
        listener = load.map { Unmanaged.passUnretained($0) }
        if load != nil { measuredPhaseBegan = true }
    }

    func connectionEnded(_ connection: BenchConnection, reason: String) {
        if measuredPhaseBegan {
            dropped += 1
        } else {
            failures.append("device \(connection.tag) (\(deviceUsers[connection.tag])): \(reason)")
        }
    }
}
