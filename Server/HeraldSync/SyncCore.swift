import HeraldProtocol
import HeraldStoreProtocol
import Logging

/// The sync service's logic without IO: connected devices, requests, fan-out, pushes.
///
/// One thread owns it (and its store). The caller feeds it batches of ``SyncInput`` with the current
/// time and writes the returned ``SyncDelivery`` values to the sockets, in order. A batch runs in ONE
/// store transaction (group commit); its responses and events come out only after that commit (R4).
/// When the batch cannot commit (read-only database, full disk), every request is redone in its own
/// transaction: writes fail with `unavailable`, reads still answer, nothing half-stored is acknowledged.
///
/// Delivery is stream-based (R1a, R3): each device remembers the stream position its `sync` reflected
/// and gets exactly the events with a higher sequence number, so nothing falls between a replay and
/// the live stream and nothing arrives twice.
///
/// ```swift
/// let core = SyncCore<Int>(store: store, configuration: .init(), logger: logger)
/// let out = core.process([.connect(1, user: "alice", name: "Alice", deviceName: nil), .text(1, syncBytes)], now: nowMs)
/// ```
public final class SyncCore<Device: Hashable> {
    let store: any SyncStore & APIKeyStore
    /// The settings this core runs with.
    public let configuration: SyncConfiguration
    let logger: Logger

    var devices: [Device: DeviceState] = [:]
    /// Each user's connected devices with their state (fan-out reads it once per recipient, not once per device).
    /// Every change to it also tells ``recipients``.
    var devicesByUser: [String: [UserDevice<Device>]] = [:]
    /// The devices that left in the current pass over a batch, with their state: a pass that runs again puts them back
    /// first, so their requests earlier in the batch are handled again, not skipped as a stranger's.
    private var departedThisPass: [UserDevice<Device>] = []
    /// Busy groups' members with their devices here, by position (a group fan-out hashes no user id).
    var recipients = RecipientCache<Device>()
    /// Viewers per conversation and background devices, kept with every scene change (see ``setScene(_:of:)``).
    var presence = ScenePresence()
    /// Display names by user id (refreshed when a user connects).
    var names: [String: String] = [:]
    /// Pushes in their grace period, ordered by deadline.
    var pendingPushes = PushSchedule()
    var nextMaintenance: Int64 = .min
    /// Due pushes wait until then (on a cluster, checks are spaced out).
    var nextPushCheck: Int64 = .min
    /// N1: when the next timed mute ends (``endDueMutes(now:)``); `.min` until the store was asked, nil when none is set.
    var nextMuteEnd: Int64? = .min
    /// With a store shared by several nodes (``joinCluster(node:)``): presence other nodes see and push routing.
    var cluster: ClusterPresence<Device>?
    /// Devices whose frames wait for another node's earlier events (``hold(_:_:seq:body:now:)``), and when the
    /// first of those waits ends.
    var holdingDevices: Set<Device> = []
    var heldFramesDeadline: Int64 = .max
    /// Running totals for metrics (messages stored, resumes, errors by code); read by the owning thread.
    public internal(set) var counters = SyncCounters()
    /// Per-user budgets of writing requests (``SyncConfiguration/requestRates``).
    var rateLimits: RequestRateLimits
    /// This node's shares of the users' daily storage allowances (``SyncConfiguration/storageQuota``).
    var storageAllowances = StorageAllowances()
    private var deviceCounter = 0
    /// Typing and presence (E1, E2): never stored, kept here while they last.
    var ephemeral = EphemeralState<Device>()
    /// Users with at least one push target (devices reachable without a connection), read from the store on first
    /// use and kept by this core's own registrations; alone, a node is the only one registering. nil: not read yet.
    var usersWithPushTargets: Set<String>?
    /// Called on this core's thread after a commit that queued pushes for devices without a connection, so the
    /// delivery workers look at once instead of at their next poll.
    public var pushQueued: (() -> Void)?
    /// Monotonic microseconds, for each user's turn on the thread (``SyncConfiguration/userBatchMicroseconds``); nil:
    /// inputs are handled first come, first served.
    public var workClock: (() -> Int)?
    /// Inputs of users whose turn in a batch ran out, with what ``prepare(_:)`` made of them, in arrival order: the next
    /// batch handles them before its own.
    private var postponed: [Turn] = []
    /// Each user's turn and what they owe (``SyncConfiguration/userBatchMicroseconds``).
    private var turns: UserTurns
    /// An input waiting for its user's turn, with what ``prepare(_:)`` made of it.
    private typealias Turn = (input: SyncInput<Device>, prepared: PreparedInput, user: String)

    /// Whether inputs wait for the next batch (``process(_:now:)`` with no new ones handles them).
    public var hasPostponedInputs: Bool { !postponed.isEmpty }

    /// - Parameters:
    ///   - store: the database, owned by the calling thread from now on (API keys included: the backend API reads them
    ///     through ``BackendOperation/apiKey(id:)``).
    ///   - configuration: grace period, retention, limits.
    ///   - logger: for store failures and maintenance (never per request).
    public init(store: any SyncStore & APIKeyStore, configuration: SyncConfiguration = SyncConfiguration(), logger: Logger = Logger(label: "herald.sync")) {
        self.store = store
        self.configuration = configuration
        self.logger = logger
        self.rateLimits = RequestRateLimits(configuration.requestRates)
        self.turns = UserTurns(budget: configuration.userBatchMicroseconds)
    }

    // MARK: - API

    /// Handles a batch of inputs at `now` (ms since the epoch) and returns what to send, in order: the batch's answers
    /// and events, then the typing and presence events it caused. Pushes and maintenance that are due are left to
    /// ``fireDueTimers(now:)``, which the owner calls once these are on their way (the batch's deliveries never wait
    /// for a timer's store reads).
    @_specialize(exported: true, where Device == DeviceHandle)
    public func process(_ arrived: [SyncInput<Device>], now: Int64) -> [SyncDelivery<Device>] {
        var step = SyncStep<Device>()
        // Room for an answer and an event or two per input: grown by doubling, the effects were copied several times a
        // batch (~2,700 instructions a send at 256 in flight).
        step.effects.reserveCapacity(arrived.count * 3)
        // A batch that runs again (whole, or request by request after a failure) starts from scratch: what an earlier
        // pass decided, counted and spent did not happen.
        let (savedCounters, savedBuckets, savedAllowances) = (counters, rateLimits, storageAllowances)
        departedThisPass.removeAll(keepingCapacity: true)
        func startOver() {
            step = SyncStep<Device>()
            step.effects.reserveCapacity(arrived.count * 3)
            (counters, rateLimits, storageAllowances) = (savedCounters, savedBuckets, savedAllowances)
            restoreDeparted()
        }
        let batchStarted = workClock?()
        // Once, however many times the batch runs.
        let (inputs, prepared, satOut) = takeTurns(arrived, prepare(arrived))
        func handleAll(standalone: Bool) {
            // A run that starts over decides turns anew.
            postponed = satOut
            guard let clock = workClock, turns.isOn else {
                for (input, prepared) in zip(inputs, prepared) { handle(input, prepared, now: now, standalone: standalone, step: &step) }
                return
            }
            turns.beginBatch()
            for (input, prepared) in zip(inputs, prepared) {
                guard let user = turnTaker(of: input) else {
                    handle(input, prepared, now: now, standalone: standalone, step: &step)
                    continue
                }
                // Everything after a postponed input of the same user waits too: a device's requests stay in order.
                if turns.isSpent(user) {
                    postponed.append((input, prepared, user))
                    continue
                }
                let started = clock()
                handle(input, prepared, now: now, standalone: standalone, step: &step)
                turns.spend(clock() - started, by: user)
            }
        }
        do {
            let lastSeen: [String: Int64]
            switch transactionNeeded(for: inputs, prepared: prepared) {
            case .none:
                handleAll(standalone: false)
                lastSeen = [:]  // nobody left: a disconnect is never delivery-only
            case .snapshot:
                try store.snapshot { handleAll(standalone: false) }
                lastSeen = [:]  // nobody left: a disconnect writes
            case .writing:
                // The store may run this twice (another writer came first and nothing was stored, or a request threw
                // after writing while its savepoint was put off, see SyncStore.batchTransaction).
                lastSeen = try store.batchTransaction {
                    startOver()
                    handleAll(standalone: false)
                    return storeLastSeen()  // E2: who went offline, in this same transaction
                }
            }
            lastSeenStored(lastSeen)
        } catch {
            // Nothing of the batch is stored. In-memory changes made on the way (connect, disconnect,
            // scene) are idempotent, and everything else waits in `step`, so redoing is safe.
            logger.debug("batch transaction failed, redoing requests one by one", metadata: ["error": "\(error)"])
            startOver()
            handleAll(standalone: true)
            if let lastSeen = try? store.transaction({ storeLastSeen() }) { lastSeenStored(lastSeen) }
        }
        if let batchStarted, let clock = workClock { turns.endBatch(took: clock() - batchStarted) }
        var deliveries = apply(step, now: now)
        publishPresence()
        deliveries += ephemeralDeliveries(now: now)
        return deliveries
    }

    /// This batch's inputs in the order they take their turns, and those that sit the batch out. First go the new
    /// inputs of users with nothing carried over and who owe nothing (so they wait for no one's backlog), then the
    /// inputs carried over from the last batch followed by their users' new ones. A user who owes time sits the batch
    /// out when anyone else has an input in it. Each user's inputs keep the order they came in.
    private func takeTurns(_ arrived: [SyncInput<Device>], _ prepared: [PreparedInput]) -> ([SyncInput<Device>], [PreparedInput], [Turn]) {
        // Nobody waits and nobody owes: arrival order is everyone's turn (the common case costs nothing more).
        guard !postponed.isEmpty || (turns.hasDebts && workClock != nil) else { return (arrived, prepared, []) }
        let waiting = Set(postponed.map(\.user))
        var first: [Turn] = []
        var later = postponed
        var othersWaiting = false
        first.reserveCapacity(arrived.count)
        for (input, prepared) in zip(arrived, prepared) {
            guard let user = turnTaker(of: input) else {
                first.append((input, prepared, ""))
                othersWaiting = true
                continue
            }
            if waiting.contains(user) || turns.owes(user) {
                later.append((input, prepared, user))
            } else {
                first.append((input, prepared, user))
                othersWaiting = true
            }
        }
        var satOut: [Turn] = []
        if othersWaiting {
            for entry in later where turns.owes(entry.user) { satOut.append(entry) }
            if !satOut.isEmpty { later.removeAll { turns.owes($0.user) } }
        }
        var inputs: [SyncInput<Device>] = []
        var preparedInputs: [PreparedInput] = []
        inputs.reserveCapacity(first.count + later.count)
        preparedInputs.reserveCapacity(first.count + later.count)
        for entry in first {
            inputs.append(entry.input)
            preparedInputs.append(entry.prepared)
        }
        for entry in later {
            inputs.append(entry.input)
            preparedInputs.append(entry.prepared)
        }
        return (inputs, preparedInputs, satOut)
    }

    /// The user whose turn an input spends: a connected device's requests and departure. Connects (admitted before the
    /// batch ran) and everything not of a device run in every batch.
    private func turnTaker(of input: SyncInput<Device>) -> String? {
        switch input {
        case .text(let device, _), .binary(let device), .disconnect(let device): devices[device]?.user
        case .connect, .backend, .streamRuns, .streamReconnected, .cluster: nil
        }
    }

    /// Fires pushes whose grace period ended and runs due maintenance.
    @_specialize(exported: true, where Device == DeviceHandle)
    public func fireDueTimers(now: Int64) -> [SyncDelivery<Device>] {
        if now >= nextMaintenance { runMaintenance(now: now) }
        clusterHeartbeat(now: now)
        var deliveries = releaseOverdueHolds(now: now)
        deliveries += ephemeralDeliveries(now: now)
        deliveries += endDueMutes(now: now)
        guard now >= nextPushCheck else { return deliveries }
        let due = pendingPushes.takeDue(now: now)
        guard !due.isEmpty else { return deliveries }
        // On a cluster every check reads the other nodes' presence: due pushes are checked together, at most every
        // ``clusterPushCheckMilliseconds`` (P4's grace is then up to that much longer), not once per batch.
        if cluster != nil { nextPushCheck = now + Self.clusterPushCheckMilliseconds }
        deliver(due, now: now, into: &deliveries)
        return deliveries
    }

    /// How often a node of a cluster checks the pushes whose grace period ended.
    static var clusterPushCheckMilliseconds: Int64 { 50 }

    /// The next time ``fireDueTimers(now:)`` has work, ms since the epoch.
    public var nextDeadline: Int64 {
        // Inputs carried over are due at once.
        if !postponed.isEmpty { return .min }
        return min(pendingPushes.nextDeadline.map { max($0, nextPushCheck) } ?? .max, nextMaintenance, cluster?.nextHeartbeat ?? .max, ephemeral.nextDeadline ?? .max, nextMuteEnd ?? .max, heldFramesDeadline)
    }

    /// Prunes stream events and pushes older than the retention (R3: at least 7 days are kept).
    public func runMaintenance(now: Int64) {
        nextMaintenance = now + max(configuration.maintenanceIntervalMilliseconds, 1)
        nextMuteEnd = .min  // N1: mutes set on other nodes (or a node that died before ending them) are found here too
        let cutoff = now - configuration.retentionMilliseconds
        do {
            let events = try store.pruneEvents(olderThan: cutoff, keepAtLeast: 0)
            let pushes = try store.prunePushes(olderThan: cutoff)
            // Yesterday's row stays until today's is in use everywhere, whatever the nodes' clocks say.
            try store.pruneStorageUsage(before: StorageQuota.day(now: now) - 1)
            storageAllowances.prune(before: StorageQuota.day(now: now))
            if events + pushes > 0 { logger.info("pruned old stream events and pushes", metadata: ["events": "\(events)", "pushes": "\(pushes)"]) }
        } catch {
            logger.error("pruning failed", metadata: ["error": "\(error)"])
        }
    }

    /// Connections to close, in order, after this batch's deliveries went out; the owner takes them
    /// (``takeCloses()``).
    private var closes: [SyncClose<Device>] = []

    /// The connections the last batches decided to close (signed out), in order; empties the list.
    public func takeCloses() -> [SyncClose<Device>] {
        defer { closes.removeAll() }
        return closes
    }

    /// How many devices are connected.
    public var connectedDeviceCount: Int { devices.count }

    /// Whether the device has synced and gets the live stream.
    public func isLive(_ device: Device) -> Bool { devices[device]?.cursor != nil }

    /// The live (synced) devices of each of `users` here, in order: whom typing and presence events go to.
    func liveDevices(of users: some Sequence<String>) -> [Device] {
        var live: [Device] = []
        for user in users {
            for entry in devicesByUser[user] ?? [] where entry.state.cursor != nil { live.append(entry.device) }
        }
        return live
    }

    // MARK: - Inputs

    private func handle(_ input: SyncInput<Device>, _ prepared: PreparedInput, now: Int64, standalone: Bool, step: inout SyncStep<Device>) {
        switch input {
        case .connect(let device, let user, _, let deviceName, let issuedAt):
            // A token from before a sign-out may still verify (it has not expired): the store refused it when it admitted
            // the device, before the batch ran; a sign-out earlier in this batch is asked about again. When the store
            // could not say, the device is not let in unchecked: it is told to come back (1013).
            guard case .arrival(let admission?) = prepared,
                let signedOut = try? admission.signedOut || signedOutInThisBatch(user, deviceName, issuedAt: issuedAt, signedOut: step.signedOut)
            else {
                step.effects.append(.close(device, code: HeraldCloseCode.tryAgainLater, reason: "cannot check sign-outs now"))
                return
            }
            if signedOut {
                step.effects.append(.close(device, code: HeraldCloseCode.credentialsEnded, reason: "signed out"))
                return
            }
            connect(device, user: user, name: admission.user.name, deviceName: deviceName)
        case .disconnect(let device):
            disconnect(device, now: now)
        case .binary(let device):
            guard devices[device] != nil else { return }
            let failure = ResponseFrame.failure(id: nil, ErrorInfo(.badJSON, "herald.v1 frames are JSON text; binary frames are not used"))
            step.effects.append(.answer(device, failure.encode()))
        case .backend(let call):
            perform(call, now: now, standalone: standalone, step: &step)
        case .streamRuns(let batch):
            if batch.runs.contains(where: { devicesByUser[$0.user] != nil }) { step.effects.append(.remoteRuns(batch)) }
        case .streamReconnected:
            for user in devicesByUser.keys { step.effects.append(.catchUp(user: user, through: .max)) }
        case .cluster(let signal):
            receive(signal, now: now, step: &step)
        case .text(let device, _):
            guard let state = devices[device], case .request(let request) = prepared else { return }
            switch request {
            case .failure(let failure):
                counters.recordError(failure.error.code)
                step.effects.append(.answer(device, ResponseFrame.failure(id: failure.id, failure.error).encode()))
            case .success(let frame):
                perform(frame, device: device, state: state, now: now, standalone: standalone, step: &step)
            }
        }
    }

    /// Whether a sign-out taken earlier in this batch refuses a device whose admission was decided before it.
    private func signedOutInThisBatch(_ user: String, _ deviceName: String?, issuedAt: Int64?, signedOut: Set<String>) throws -> Bool {
        guard signedOut.contains(user), let issuedAt else { return false }
        return try store.isSignedOut(user: user, device: deviceName, issuedAt: issuedAt)
    }

    /// `name`: the user's name as stored (the store created a user it did not hold when it admitted the device).
    private func connect(_ device: Device, user: String, name: String, deviceName: String?) {
        if let previous = devices[device] {
            presence.change(from: previous.scene, to: nil)
            removeFromUser(device, previous.user)
        } else {
            deviceCounter += 1
        }
        let state = DeviceState(user: user, name: deviceName ?? "\(user).d\(deviceCounter)", isNamed: deviceName != nil)
        devices[device] = state
        devicesByUser[user, default: []].append(UserDevice(device: device, state: state))
        recipients.devicesChanged()
        presence.change(from: nil, to: state.scene)
        names[user] = name
    }

    private func disconnect(_ device: Device, now: Int64) {
        guard let state = devices.removeValue(forKey: device) else { return }
        departedThisPass.append(UserDevice(device: device, state: state))
        presence.change(from: state.scene, to: nil)
        cluster?.depart(device, user: state.user, name: state.name, now: now)
        removeFromUser(device, state.user)
        deviceLeft(state, now: now)
    }

    /// Undoes the connection table's side of this pass's disconnects (the rest of a disconnect is safe to do twice: the
    /// pass that runs again disconnects them anew).
    private func restoreDeparted() {
        for departed in departedThisPass.reversed() {
            devices[departed.device] = departed.state
            devicesByUser[departed.state.user, default: []].append(departed)
            presence.change(from: nil, to: departed.state.scene)
        }
        if !departedThisPass.isEmpty { recipients.devicesChanged() }
        departedThisPass.removeAll(keepingCapacity: true)
    }

    private func removeFromUser(_ device: Device, _ user: String) {
        devicesByUser[user]?.removeAll { $0.device == device }
        if devicesByUser[user]?.isEmpty == true { devicesByUser[user] = nil }
        recipients.devicesChanged()
    }

    private func perform(_ frame: RequestFrame, device: Device, state: DeviceState, now: Int64, standalone: Bool, step: inout SyncStep<Device>) {
        let mark = step.effects.count
        let storedBefore = counters.messagesStored
        let wasSyncing = step.syncing.contains(device)
        var response: ResponseFrame
        do {
            let synced = state.cursor != nil || wasSyncing
            if case .sync = frame.request {
                if synced { throw ErrorInfo(.badState, "this connection already sent sync") }
            } else if !synced {
                throw ErrorInfo(.badState, "send sync first")
            }
            do {
                try rateLimits.spend(for: frame.request, user: state.user, nowMs: now)
            } catch {
                counters.rateLimited += 1
                throw error
            }
            let run = { () throws -> ResponseFrame in
                try self.execute(frame, device: device, state: state, now: now, step: &step)
            }
            if standalone && !frame.request.writesToStore {
                response = try store.snapshot(run)
            } else {
                response = try store.transaction(run)
            }
        } catch {
            // The savepoint rolled back this request's writes; drop its buffered effects with them.
            step.effects.removeSubrange(mark...)
            if !wasSyncing { step.syncing.remove(device) }
            response = .failure(id: frame.id, Self.errorInfo(for: error))
            counters.recordFailure(error)
            counters.messagesStored = storedBefore
            if let code = response.error?.code { counters.recordError(code) }
        }
        if response.error == nil { presenceMayHaveChanged(device, by: frame.request) }
        step.effects.append(.answer(device, response.encode()))
        if response.error == nil, case .sync = frame.request, response.more != true { deviceSynced(device, state: state, now: now) }
    }

    /// The error a failed request is answered with. Store failures never leak SQL details.
    static func errorInfo(for error: any Error) -> ErrorInfo {
        if let info = error as? ErrorInfo { return info }
        if let storeError = error as? StoreError {
            switch storeError.kind {
            case .readOnly, .full, .io, .busy, .corrupt:
                return ErrorInfo(.unavailable, "the server cannot store this right now; nothing was stored")
            case .notFound, .constraint, .other:
                return ErrorInfo(.internal, "internal error; nothing was stored")
            }
        }
        return ErrorInfo(.internal, "internal error; nothing was stored")
    }

    // MARK: - After the commit

    func apply(_ step: SyncStep<Device>, now: Int64) -> [SyncDelivery<Device>] {
        var deliveries: [SyncDelivery<Device>] = []
        deliveries.reserveCapacity(step.effects.count)
        for effect in step.effects {
            switch effect {
            case .answer(let device, let payload):
                if holdIfWaiting(device, payload: payload, answersRequest: true) { continue }
                deliveries.append(SyncDelivery(payload: payload, devices: [device], answersRequest: true))
            case .reply(let device, let payload):
                if holdIfWaiting(device, payload: payload, answersRequest: false) { continue }
                deliveries.append(SyncDelivery(payload: payload, devices: [device]))
            case .streamEvent(let users, let seqs, let body, let conversation):
                deliverStreamEvent(users: users, seqs: seqs, body: body, conversation: conversation, now: now, into: &deliveries)
            case .catchUp(let user, let seq):
                catchUp(user: user, through: seq, now: now, into: &deliveries)
            case .remoteRuns(let batch):
                deliverRuns(batch, now: now, into: &deliveries)
            case .deviceEvent(let targets, let payload):
                let online = targets.filter { devices[$0] != nil && !holdIfWaiting($0, payload: payload, answersRequest: false) }
                if !online.isEmpty { deliveries.append(SyncDelivery(payload: payload, devices: online)) }
            case .live(let device, let cursor):
                devices[device]?.cursor = cursor
            case .backendReply(let call, let result):
                call.reply(result)
            case .schedulePush(let push):
                pendingPushes.insert(push)
            case .pushQueued:
                pushQueued?()
            case .close(let device, let code, let reason):
                // What it held goes out first (its answer to its own sign-out may be among it).
                flushHeld(device, now: now, into: &deliveries)
                disconnect(device, now: now)
                closes.append(SyncClose(device: device, code: code, reason: reason))
            }
        }
        return deliveries
    }
}
