import Foundation
import Glibc
import HeraldStoreProtocol
import Logging
import Synchronization

/// How the delivery workers run.
public struct PushGatewaySettings: Sendable {
    /// Workers per provider, each sending one push at a time: the requests in flight per provider. A slow provider
    /// never holds up another's pushes, and a slow host never holds up more than its share (`hostConcurrency`).
    public var concurrency = 4
    /// How long a claimed row is left to its worker before another may take it (a worker or process that died).
    public var leaseMilliseconds: Int64 = 60_000
    /// The longest sleep between looks at the queue (pushes another node queued, retries coming due).
    public var pollMilliseconds: Int64 = 1_000
    /// One request's limit; a provider that hangs is retried later.
    public var requestTimeoutMilliseconds = 15_000
    /// TCP connect and TLS handshake limit: a host that accepts and never finishes the handshake is given up early.
    public var connectTimeoutMilliseconds = 5_000
    /// Nothing received for this long (whole seconds): the request is given up. A tarpit that takes the request and
    /// never answers holds a worker this long, not `requestTimeoutMilliseconds`.
    public var stallTimeoutMilliseconds = 5_000
    /// Requests in flight to one Web Push site (``PushHostGate/site(ofEndpoint:)``): the most of a provider's workers
    /// one host can hold. Operator-configured providers (APNs, FCM, webhook) are one host and get all the workers.
    public var hostConcurrency = 2
    /// Retry budget per Web Push site: this many retries at once, then `hostRetriesPerSecond`; past it a retry waits.
    public var hostRetryBurst = 10
    public var hostRetriesPerSecond = 1.0
    /// Web Push endpoints (chosen by users) may connect to loopback addresses as well as public ones: the tests'
    /// allowance (`--push-allow-http-loopback`). Private, link-local and the rest are refused either way.
    public var allowsLoopbackEndpoints = false
    /// `host:port:address` entries that replace name resolution, as curl's `--resolve` does (tests only, since they
    /// cannot change DNS): the address is still checked at connect time like any resolved one.
    public var resolve: [String] = []
    /// Certificates to trust instead of the system's (tests' stand-ins).
    public var caFile: String?
    public var retry = PushRetryPolicy()
    /// A push whose lease ran out this many claims in a row with no outcome recorded, the last one held by a process
    /// that is gone (it died while handling the push), is quarantined: taken out of the queue, logged and counted, never
    /// handled again (``PushQuarantine``). Three lets a push survive a crash or two for reasons of its own; one that
    /// keeps killing the server stops at the third.
    public var quarantineAfterLapsedClaims = 3

    public init() {}

    /// Where `provider`'s connections may go: users choose Web Push endpoints, so those go to public addresses only;
    /// the other providers' URLs are the operator's (``OutboundAddressPolicy/operatorConfigured``).
    func addressPolicy(for provider: PushProvider) -> OutboundAddressPolicy {
        guard provider == .webpush else { return .operatorConfigured }
        return allowsLoopbackEndpoints ? .publicOrLoopback : .publicOnly
    }

    /// How `provider`'s hosts share its workers. An operator-configured provider is one host that gets every worker and
    /// no retry budget (a budget would slow its recovery after an outage); it still backs off when it fails.
    func hostLimits(for provider: PushProvider) -> PushHostGate.Limits {
        let backoff = (base: retry.baseMilliseconds, max: retry.maxBackoffMilliseconds)
        guard provider == .webpush else {
            return PushHostGate.Limits(
                maxInFlight: max(concurrency, 1), retryBurst: nil, retriesPerSecond: 0, backoffBaseMilliseconds: backoff.base, backoffMaxMilliseconds: backoff.max)
        }
        return PushHostGate.Limits(
            maxInFlight: max(min(hostConcurrency, concurrency), 1), retryBurst: hostRetryBurst, retriesPerSecond: hostRetriesPerSecond,
            backoffBaseMilliseconds: backoff.base, backoffMaxMilliseconds: backoff.max, wellKnownMaxInFlight: max(concurrency, 1))
    }

    var timeouts: TransferTimeouts {
        TransferTimeouts(requestMilliseconds: requestTimeoutMilliseconds, connectMilliseconds: connectTimeoutMilliseconds, stallMilliseconds: stallTimeoutMilliseconds)
    }
}

/// Delivers the store's push queue to the providers: threads of its own (never an event loop or the sync thread), each
/// with its own store connection and HTTP connection, claiming due rows under a lease (one at a time, so a provider's
/// workers are its requests in flight) and settling each by the provider's answer: accepted (gone from the queue),
/// retried with backoff and jitter until it expires (Retry-After honoured), refused for good (dropped), or the target
/// gone (forgotten).
///
/// Nothing is lost across a crash: a row leaves the queue only once its provider accepted it; a row whose worker died
/// is claimed again when its lease ends. Order per device: the store hands out only the oldest row of each target.
///
/// Hosts share a provider's workers through a ``PushHostGate``: a row whose host has its share in flight, is backing
/// off, or has spent its retry budget is put off (not counted as an attempt) and the worker takes the next row.
public final class PushGateway: @unchecked Sendable {
    public let metrics: PushMetrics
    private let clients: [any PushProviderClient]
    private let settings: PushGatewaySettings
    private let makeStore: @Sendable () throws -> any PushQueueStore
    private let logger: Logger
    private let signal = PushWakeSignal()
    private let stopping = Atomic<Bool>(false)
    private let finished = DispatchGroup()
    /// When this gateway came up: a lease taken before then was held by a process that is gone.
    private let startedAt = PushGateway.wallMilliseconds()

    /// - Parameters:
    ///   - clients: one per configured provider.
    ///   - makeStore: opens a connection to the store's push queue; called once per worker.
    public init(
        clients: [any PushProviderClient], settings: PushGatewaySettings, makeStore: @escaping @Sendable () throws -> any PushQueueStore, logger: Logger
    ) {
        self.clients = clients
        self.settings = settings
        self.makeStore = makeStore
        self.logger = logger
        metrics = PushMetrics(providers: clients.map(\.provider))
    }

    /// Starts the workers: `concurrency` per provider, sharing that provider's host gate.
    public func start() {
        for client in clients {
            let gate = HostGateLock(PushHostGate(limits: settings.hostLimits(for: client.provider)))
            for index in 0..<max(settings.concurrency, 1) {
                finished.enter()
                let thread = Thread { [self] in
                    work(client, gate: gate)
                    finished.leave()
                }
                thread.name = "herald-push-\(client.provider.rawValue)-\(index)"
                thread.start()
            }
        }
    }

    /// Pushes were queued: look now.
    public func wake() {
        signal.signal()
    }

    /// Stops the workers after the request each is making; what is still queued stays for the next start.
    public func stop() {
        stopping.store(true, ordering: .relaxed)
        signal.signal()
        finished.wait()
    }

    // MARK: - Worker

    private func work(_ client: any PushProviderClient, gate: HostGateLock) {
        var opened: (any PushQueueStore)?
        while opened == nil, !stopping.load(ordering: .relaxed) {
            do { opened = try makeStore() } catch {
                logger.error("push worker cannot open the store; retrying", metadata: ["provider": "\(client.provider.rawValue)", "error": "\(error)"])
                signal.wait(after: signal.current, milliseconds: 5_000)
            }
        }
        guard let store = opened else { return }
        let transfer = HTTPTransfer(
            caFile: settings.caFile, timeouts: settings.timeouts, policy: settings.addressPolicy(for: client.provider), resolve: settings.resolve,
            logger: logger)
        while !stopping.load(ordering: .relaxed) {
            let seen = signal.current
            let now = Self.wallMilliseconds()
            let claimed: [PushDeliveryRecord]
            do {
                // One row: a worker sends what it claimed at once, so no push waits behind another's slow request (a
                // batch sent one after the other did), and memory stays at `concurrency` pushes per provider.
                claimed = try store.claimPushDeliveries(
                    provider: client.provider, limit: 1, now: now, leaseMilliseconds: settings.leaseMilliseconds)
            } catch {
                logger.warning("push queue unreadable", metadata: ["provider": "\(client.provider.rawValue)", "error": "\(error)"])
                signal.wait(after: seen, milliseconds: settings.pollMilliseconds)
                continue
            }
            if claimed.isEmpty {
                let next = (try? store.nextPushAttempt()) ?? nil
                let sleep = next.map { min(max($0 - now, 1), settings.pollMilliseconds) } ?? settings.pollMilliseconds
                signal.wait(after: seen, milliseconds: sleep)
                continue
            }
            for delivery in claimed {
                if stopping.load(ordering: .relaxed) {
                    // Handed back unsent, its lease ended: left to lapse, it would count towards quarantine as if this
                    // process had died handling it. If this fails, the lease runs out and the next start sends it.
                    try? store.deferPushDelivery(id: delivery.id, at: Self.wallMilliseconds())
                    continue
                }
                send(delivery, with: client, over: transfer, store: store, gate: gate)
            }
        }
    }

    /// Sends `delivery` if its host's share, backoff and retry budget allow; else puts it off, not counted as an attempt.
    private func send(_ delivery: PushDeliveryRecord, with client: any PushProviderClient, over transfer: HTTPTransfer, store: any PushQueueStore, gate: HostGateLock) {
        let now = Self.wallMilliseconds()
        // An expired row is dropped without a request: no host is asked. A row to quarantine is taken out before its host
        // is asked too: put off, it would end its lease with an outcome and lose the count of lapses that condemns it.
        if now >= delivery.expiresAt
            || PushQuarantine.applies(
                to: delivery, limit: settings.quarantineAfterLapsedClaims, gatewayStartedAt: startedAt, leaseMilliseconds: settings.leaseMilliseconds)
        {
            return deliver(delivery, with: client, over: transfer, store: store)
        }
        // Web Push endpoints are users' hosts, shared out by site; the other providers are one operator-configured host.
        let host = client.provider == .webpush ? PushHostGate.site(ofEndpoint: delivery.target.token) : client.provider.rawValue
        switch gate.withLock({ $0.admit(host, isRetry: delivery.attempts > 1, now: now) }) {
        case .putOff(let until, let reason):
            do { try store.deferPushDelivery(id: delivery.id, at: until) } catch {
                // The lease runs out and the row is claimed again: later than asked, never lost.
                logger.warning("push not put off", metadata: ["provider": "\(client.provider.rawValue)", "push": "\(delivery.id)", "error": "\(error)"])
            }
            logger.debug(
                "push put off", metadata: ["provider": "\(client.provider.rawValue)", "push": "\(delivery.id)", "reason": "\(reason)", "inMs": "\(until - now)"])
        case .send:
            transfer.forgetSummary()
            deliver(delivery, with: client, over: transfer, store: store)
            let failed = PushHostGate.failed(
                transfer.lastSummary, tooManyRequestsIsTheHost: client.provider == .webpush && !PushHostGate.isWellKnownPushService(host))
            gate.withLock { $0.finish(host, failed: failed, now: Self.wallMilliseconds()) }
        }
    }

    private func deliver(_ delivery: PushDeliveryRecord, with client: any PushProviderClient, over transfer: HTTPTransfer, store: any PushQueueStore) {
        let counters = metrics.providers[client.provider]
        if PushQuarantine.applies(
            to: delivery, limit: settings.quarantineAfterLapsedClaims, gatewayStartedAt: startedAt, leaseMilliseconds: settings.leaseMilliseconds)
        {
            quarantine(delivery, provider: client.provider, store: store)
            return
        }
        var now = Self.wallMilliseconds()
        let outcome: DeliveryOutcome
        if now >= delivery.expiresAt {
            outcome = .rejected(reason: "expired before it could be delivered")
        } else {
            do {
                let request = try client.request(for: delivery, now: now, send: transfer.perform)
                switch transfer.perform(request) {
                case .success(let response): outcome = client.outcome(of: response, for: delivery)
                case .failure(let error): outcome = .retry(after: nil, reason: error.description)
                }
            } catch {
                switch error.kind {
                case .unsendable: outcome = .rejected(reason: error.message)
                case .credentialsUnavailable: outcome = .retry(after: nil, reason: error.message)
                }
            }
        }
        now = Self.wallMilliseconds()
        // Never the target's token, the payload or credentials: a log line names the row and the provider's words.
        let metadata: Logger.Metadata = ["provider": "\(client.provider.rawValue)", "push": "\(delivery.id)", "attempt": "\(delivery.attempts)"]
        do {
            switch outcome {
            case .accepted:
                try store.completePushDelivery(id: delivery.id)
                counters?.sent.add(1, ordering: .relaxed)
                counters?.recordLatency(now - delivery.createdAt)
            case .refreshCredentials(let reason):
                client.invalidateCredentials()
                counters?.failed.add(1, ordering: .relaxed)
                counters?.retried.add(1, ordering: .relaxed)
                logger.notice("push credentials refused; making new ones", metadata: metadata.merging(["reason": "\(reason)"]) { a, _ in a })
                // At once the first times (new credentials fix it); with backoff after, so a key the provider keeps
                // refusing cannot make a request loop.
                let at = delivery.attempts <= 2 ? now : settings.retry.nextAttempt(afterAttempts: delivery.attempts, retryAfterSeconds: nil, now: now, random: .random(in: 0...1))
                try store.retryPushDelivery(id: delivery.id, at: at)
            case .retry(let retryAfter, let reason):
                counters?.failed.add(1, ordering: .relaxed)
                // Until it expires (checked before each attempt): an outage shorter than the TTL loses nothing. The
                // provider's Retry-After is untrusted: read as a bounded wait, cut to the policy's limit.
                let afterSeconds = retryAfter?.seconds(now: now, limit: settings.retry.maxRetryAfterSeconds)
                let at = settings.retry.nextAttempt(afterAttempts: delivery.attempts, retryAfterSeconds: afterSeconds, now: now, random: .random(in: 0...1))
                try store.retryPushDelivery(id: delivery.id, at: at)
                counters?.retried.add(1, ordering: .relaxed)
                logger.debug("push retried later", metadata: metadata.merging(["reason": "\(reason)", "inMs": "\(at.subtractingReportingOverflow(now).partialValue)"]) { a, _ in a })
            case .targetGone(let reason):
                try store.removePushTarget(id: delivery.target.id, registeredAt: delivery.target.updatedAt)
                // Gone with its target; if the device registered a new address meanwhile, the row stays and goes there.
                try store.retryPushDelivery(id: delivery.id, at: now)
                counters?.targetsRemoved.add(1, ordering: .relaxed)
                logger.info("push target removed: the provider says it is gone", metadata: metadata.merging(["reason": "\(reason)"]) { a, _ in a })
            case .rejected(let reason):
                try store.dropPushDelivery(id: delivery.id)
                counters?.failed.add(1, ordering: .relaxed)
                counters?.dropped.add(1, ordering: .relaxed)
                logger.warning("push dropped", metadata: metadata.merging(["reason": "\(reason)"]) { a, _ in a })
            }
        } catch {
            // The lease runs out and the row is tried again: at worst once more, never lost.
            logger.warning("push outcome not recorded", metadata: metadata.merging(["error": "\(error)"]) { a, _ in a })
        }
    }

    /// Takes a push that keeps dying with its worker out of the queue before anything is done with it again: no request,
    /// no parsing of anything a provider said. Logged at error (an operator should find out why) and counted.
    private func quarantine(_ delivery: PushDeliveryRecord, provider: PushProvider, store: any PushQueueStore) {
        let metadata: Logger.Metadata = [
            "provider": "\(provider.rawValue)", "push": "\(delivery.id)", "kind": "\(delivery.kind.rawValue)", "attempt": "\(delivery.attempts)",
            "lapsedClaims": "\(delivery.lapsedClaims)",
        ]
        do {
            try store.dropPushDelivery(id: delivery.id)
            metrics.providers[provider]?.quarantined.add(1, ordering: .relaxed)
            logger.error("push quarantined: its handling never finished \(delivery.lapsedClaims) times in a row", metadata: metadata)
        } catch {
            logger.warning("push to quarantine not removed; tried again when its lease ends", metadata: metadata.merging(["error": "\(error)"]) { a, _ in a })
        }
    }

    /// Milliseconds since the epoch, the store's time base.
    static func wallMilliseconds() -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return Int64(now.tv_sec) * 1_000 + Int64(now.tv_nsec) / 1_000_000
    }
}

/// One provider's ``PushHostGate``, shared by its workers.
final class HostGateLock: Sendable {
    private let gate: Mutex<PushHostGate>

    init(_ gate: PushHostGate) { self.gate = Mutex(gate) }

    func withLock<T>(_ body: (inout PushHostGate) -> T) -> T { gate.withLock { body(&$0) } }
}
