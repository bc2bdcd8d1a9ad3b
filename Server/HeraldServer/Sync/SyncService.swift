import Foundation
import HeraldBytes
import HeraldClock
import HeraldNet
import HeraldProtocol
import HeraldRules
import HeraldStoreProtocol
import HeraldSync
import HeraldWebSocket
import Logging

/// The `/sync` service: owns the store, authentication and the sync thread.
///
/// Upgrades to `/sync` are authenticated on the loop thread (``SyncUpgradeAuthorizer``); each session
/// then posts its messages to the sync thread's inbox. The sync thread drains the inbox in batches into a
/// ``SyncCore`` (one transaction per batch) and hands what it returns to ``HeraldHTTPServer/send(messages:)``, the
/// whole batch at once: one shared body per delivery, each receiver's sequence number beside it.
public final class SyncService: Sendable {
    private let inbox: SyncInbox<SessionHandle>
    private let finished = DispatchSemaphore(value: 0)
    private let runner: SyncThreadRunner
    /// With a store several nodes share: the feed that tells this node about the other nodes' commits.
    private let listener: (any StoreSignalFeed)?
    /// The JWT signing secret the service verifies with (the API mints tokens with it).
    let signingKeys: SigningKeys

    /// Takes over the opened store (closing it when this throws), resolves the signing secret, registers `/sync`
    /// and starts the sync thread. Call before `server.start()`.
    /// - Parameter pushQueued: called (on the sync thread) after a commit that queued pushes for devices without a
    ///   connection: the composition root wakes its push workers with it.
    public init(
        storage: SyncStorage, options: HeraldServerOptions, server: HeraldHTTPServer, logger: Logger, pushQueued: (@Sendable () -> Void)? = nil
    ) throws {
        let store = storage.store
        let secret: SigningKeys
        do {
            secret = try SigningSecret.resolve(option: options.secret, store: store)
        } catch {
            store.close()
            throw error
        }
        signingKeys = secret
        var configuration = SyncConfiguration(pushGraceMilliseconds: Int64((max(options.pushGraceSeconds, 0) * 1000).rounded()))
        configuration.requestRates = options.syncRequestRates
        configuration.push.providers = options.push.providers
        configuration.push.preview = options.push.preview
        configuration.push.maxTargetsPerUser = options.push.maxTargetsPerUser
        configuration.push.timeToLiveMilliseconds = Int64(options.push.timeToLiveSeconds) * 1_000
        configuration.push.allowsLoopbackHTTP = options.push.allowsLoopbackHTTP
        configuration.limits.maxTextBytes = options.maxTextBytes
        configuration.userBatchMicroseconds = options.syncUserBatchMicroseconds
        configuration.messageRevisions.editWindowMilliseconds = Int64(options.editWindowSeconds) * 1_000
        configuration.messageRevisions.unsendWindowMilliseconds = Int64(options.unsendWindowSeconds) * 1_000
        configuration.storageQuota = StorageQuota(bytesPerDay: Int64(options.userDailyQuotaBytes))
        // Resume pages stay well under the per-connection send queue (the same bound HeraldHTTPServer applies), so
        // a device closed as a slow consumer can catch up page by page instead of being closed again (R3).
        let queueBound = max(options.maxQueuedBytes ?? max(4 << 20, 2 * options.maxMessageSize + 64), options.maxMessageSize + 64)
        configuration.resumePageBytes = max(queueBound / 4, 1)
        let inbox = SyncInbox<SessionHandle>()
        self.inbox = inbox
        let core = SyncCore<SessionHandle>(store: store, configuration: configuration, logger: logger)
        core.pushQueued = pushQueued
        core.workClock = { MonotonicClock.microseconds() }
        // Several nodes on one database: device presence is shared so pushes see every node (P1-P5).
        let node = Self.newNodeID()
        if storage.openSignalFeed != nil {
            do {
                try core.joinCluster(node: node)
            } catch {
                store.close()
                throw error
            }
        }
        runner = SyncThreadRunner(core: core, store: store, server: server, inbox: inbox, finished: finished)

        // Other nodes' commits reach this node's devices through the store: one wake-up per committed transaction,
        // read by the feed's thread (and a reconnect says "catch everyone up").
        listener = storage.openSignalFeed.map { open in
            open(node) { signal in
                switch signal {
                case .streams(let batch): inbox.post(.streamRuns(batch))
                case .reconnected: inbox.post(.streamReconnected)
                case .push(let target, let key, let message) where target == node:
                    inbox.post(.cluster(.push(deviceKey: key, message: message)))
                case .pushCleared(let target, let key, let conversation, let message) where target == node:
                    inbox.post(.cluster(.pushCleared(deviceKey: key, conversation: conversation, message: message)))
                case .bellPush(let target, let key, let notification) where target == node:
                    inbox.post(.cluster(.bellPush(deviceKey: key, notification: notification)))
                case .push, .pushCleared, .bellPush: break  // addressed to another node
                case .signedOut(let user, let device): inbox.post(.cluster(.signedOut(user: user, device: device)))
                case .published(let message): inbox.post(.cluster(.published(message: message)))
                case .ephemeral(let signal): inbox.post(.cluster(.ephemeral(signal)))
                }
            }
        }
        listener?.start()

        let authorizer = SyncUpgradeAuthorizer(keys: secret)
        let maxUnanswered = options.maxUnansweredRequests
        // One delegate for every /sync session: it only forwards, keyed by the session's handle.
        let delegate = SyncSessionDelegate(inbox: inbox)
        let users = server.userShares
        server.addWebSocketRoute("/sync") { head in
            switch authorizer.authorize(head, now: Int64(Date().timeIntervalSince1970)) {
            case .failure(let refusal):
                return .reject(status: refusal.status, message: refusal.message)
            case .success(let upgrade):
                // One person's devices, not one token's crowd: the user's sessions are counted and share one input
                // budget. The session is made right after this decision, on this thread, and releases the share.
                guard let share = users.admit(upgrade.claims.sub) else {
                    server.metrics.countRefusal(.perUserConnections)
                    server.warnings.warn(.connectionRefused, "refused: connection limit",
                                         metadata: ["user": "\(upgrade.claims.sub)", "limit": "per_user_connections", "status": "429"])
                    return .reject(status: 429, message: "too many connections for this user")
                }
                return .accept(subprotocol: upgrade.subprotocol) { session in
                    session.chargeInput(to: share)
                    session.limitUnansweredRequests(to: maxUnanswered)
                    // The connection ends with its token (monotonic deadline, so a wall-clock step does not move it).
                    let remainingMs = upgrade.claims.millisecondsLeft(now: Int64(Date().timeIntervalSince1970 * 1000))
                    session.endCredentials(
                        at: Tick.monotonicNow().adding(milliseconds: remainingMs),
                        code: CloseCode(rawValue: HeraldCloseCode.credentialsEnded), reason: "token expired")
                    inbox.post(.connect(
                        session.handle, user: upgrade.claims.sub, name: upgrade.claims.name, deviceName: upgrade.deviceName,
                        issuedAt: upgrade.claims.iat))
                    return delegate
                }
            }
        }
        let runner = self.runner
        let thread = Thread { runner.run() }
        thread.name = "herald-sync"
        thread.start()
    }

    /// Queues a backend operation (the HTTP API's) on the sync thread; `call.reply` runs there after its commit.
    public func perform(_ call: BackendCall) {
        inbox.post(.backend(call))
    }

    /// A random id for this node's run (16 hex digits): presence rows and pushes of a restarted node never mix with
    /// the previous run's.
    private static func newNodeID() -> String {
        var generator = SystemRandomNumberGenerator()
        let value = UInt64.random(in: .min ... .max, using: &generator)
        let hex = String(value, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }

    /// Stops the sync thread after it handled what is queued, and closes the store. Idempotent.
    public func shutdown() {
        guard runner.markStopping() else { return }
        listener?.stop()
        inbox.stop()
        finished.wait()
    }
}

/// The sync thread's body; everything in it is confined to that thread.
private final class SyncThreadRunner: @unchecked Sendable {
    // @unchecked: `core`, `store` and `reportedStoreFailures` are used only by the sync thread (`run`); `stopping` is
    // behind `lock`.
    private let core: SyncCore<SessionHandle>
    private let store: any SyncStore
    private let server: HeraldHTTPServer
    private let inbox: SyncInbox<SessionHandle>
    private let finished: DispatchSemaphore
    private let lock = NSLock()
    private var stopping = false

    init(core: SyncCore<SessionHandle>, store: any SyncStore, server: HeraldHTTPServer, inbox: SyncInbox<SessionHandle>, finished: DispatchSemaphore) {
        self.core = core
        self.store = store
        self.server = server
        self.inbox = inbox
        self.finished = finished
    }

    /// True the first time only.
    func markStopping() -> Bool {
        lock.lock()
        defer { lock.unlock() }
        if stopping { return false }
        stopping = true
        return true
    }

    func run() {
        while true {
            let (inputs, stopped) = inbox.take(deadline: core.nextDeadline)
            let now = Int64(Date().timeIntervalSince1970 * 1000)
            if !inputs.isEmpty || core.hasPostponedInputs {
                let startedAt = MonotonicClock.microseconds()
                let deliveries = core.process(inputs, now: now)
                let committedAt = MonotonicClock.microseconds()
                server.metrics.syncBatchDuration.observe(microseconds: committedAt - startedAt)
                hand(deliveries, committedAt: committedAt)
            }
            // Timers (pushes whose grace ended, maintenance, heartbeats) only once the batch's frames are on their way:
            // the loops write them while this thread checks pushes, instead of waiting for it. On a cluster the check
            // of a fan-out's due pushes reads every recipient's presence and was a fifth of the sync thread's time.
            hand(core.fireDueTimers(now: now), committedAt: MonotonicClock.microseconds())
            if stopped && !core.hasPostponedInputs { break }
        }
        // E2: whoever is still connected is last seen now, and that outlives the restart.
        core.recordDepartures(now: Int64(Date().timeIntervalSince1970 * 1000))
        core.leaveCluster()
        store.close()
        finished.signal()
    }

    /// Hands what the core returned to the loops: counters first (a client that saw its answer sees it counted), then
    /// the frames, then the connections to close.
    private func hand(_ deliveries: [SyncDelivery<SessionHandle>], committedAt: Int) {
        server.metrics.publish(core.counters)
        reportStoreFailures()
        // The whole batch in one task per loop (frames stay in order).
        if !deliveries.isEmpty { server.send(messages: deliveries.map { (Self.message($0), $0.devices) }) }
        // After the batch's frames, so a signed-out device still gets the answer to its own sign-out.
        for close in core.takeCloses() { server.close(close.device, code: CloseCode(rawValue: close.code), reason: close.reason) }
        recordMetrics(deliveries, committedAt: committedAt)
    }

    /// Store failures reported so far (``SyncCounters/storeFailures`` only grows).
    private var reportedStoreFailures = 0

    /// Warns (rate-limited) when requests of the last batch failed because the store did: a full disk or a read-only
    /// database is otherwise only visible as `unavailable` answers and a metric.
    private func reportStoreFailures() {
        let counters = core.counters
        let new = counters.storeFailures - reportedStoreFailures
        guard new > 0, let failure = counters.lastStoreFailure else { return }
        reportedStoreFailures = counters.storeFailures
        server.warnings.warn(.storeWriteFailed, "store write failed; requests answered unavailable, nothing stored",
                             metadata: ["error": "\(failure.kind)", "code": "\(failure.code)", "reason": "\(failure.message)", "requests": "\(new)"])
    }

    /// Publishes the core's totals and times this batch's deliveries: a task queued on every loop behind the
    /// batch's frames runs once they are all queued there (loop tasks run in order).
    private func recordMetrics(_ deliveries: [SyncDelivery<SessionHandle>], committedAt: Int) {
        let metrics = server.metrics
        guard !deliveries.isEmpty else { return }
        let loops = server.loops
        metrics.fanoutDeliveries.add(deliveries.reduce(0) { $0 + $1.devices.count })
        // With one loop every device is on it: no need to visit each device's connection (a group's batch names
        // 32,000, each a cache miss).
        var loopsUsed: UInt64 = 0
        if loops.count == 1 {
            loopsUsed = 1 << UInt64(loops[0].index & 63)
        } else {
            for delivery in deliveries {
                for device in delivery.devices { loopsUsed |= 1 << UInt64(device.loopIndex & 63) }
            }
        }
        for loop in loops where loopsUsed & (1 << UInt64(loop.index & 63)) != 0 {
            loop.execute { metrics.deliveryLatency.observe(microseconds: MonotonicClock.microseconds() - committedAt) }
        }
    }

    /// How a delivery goes out: a live stream event as a per-receiver head plus the fan-out's shared body, anything
    /// else as one complete frame shared by the delivery's devices.
    static func message(_ delivery: SyncDelivery<SessionHandle>) -> FanOutMessage {
        if let body = delivery.body { return .sequencedEvent(body: body, seqs: delivery.seqs) }
        if delivery.answersRequest { return .answer(textFrame(delivery.payload(at: 0))) }
        return .frame(textFrame(delivery.payload(at: 0)))
    }

    /// One unmasked text frame, shared by every receiver of a delivery, written straight into its shared buffer.
    static func textFrame(_ payload: [UInt8]) -> OutgoingFrame {
        OutgoingFrame.text(payload)
    }
}

/// Forwards the /sync sessions' callbacks (loop threads) to the sync thread's inbox.
final class SyncSessionDelegate: WebSocketSessionDelegate, Sendable {
    var route: String { "/sync" }

    private let inbox: SyncInbox<SessionHandle>

    /// Made once, so posting allocates no closure per message.
    private let wakeInbox: @Sendable () -> Void

    init(inbox: SyncInbox<SessionHandle>) {
        self.inbox = inbox
        wakeInbox = { inbox.wake() }
    }

    func sessionDidReceiveText(_ session: WebSocketSession, _ text: UnsafeRawBufferPointer) {
        post(.text(session.handle, Array(text)), from: session)
    }

    func sessionDidReceiveBinary(_ session: WebSocketSession, _ bytes: UnsafeRawBufferPointer) {
        post(.binary(session.handle), from: session)
    }

    func sessionDidClose(_ session: WebSocketSession) {
        post(.disconnect(session.handle), from: session)
    }

    /// Queued at once (in order with every other input), but the sync thread is woken once for everything a loop pass
    /// read. Woken at the first message, it took that one alone while the loop, on the same core, waited to read the
    /// rest: a fan-out to 1,000 at full speed went out ~3 messages per batch and per system call; now ~7, and the
    /// server spends ~40% less CPU per delivery.
    private func post(_ input: SyncInput<SessionHandle>, from session: WebSocketSession) {
        inbox.postQuietly(input)
        session.connection.loop.onceEventsHandled(ObjectIdentifier(inbox), wakeInbox)
    }
}
