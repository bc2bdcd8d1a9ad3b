import Foundation
import Glibc
import HeraldStoreProtocol
import Logging
import Synchronization

/// How the delivery workers run.
public struct PushGatewaySettings: Sendable {
    /// Workers (so requests in flight) per provider: a slow provider never holds up another's pushes.
    public var concurrency = 4
    /// Rows one worker claims at a time (bounded memory: at most `concurrency × claimBatch` pushes per provider).
    public var claimBatch = 16
    /// How long a claimed row is left to its worker before another may take it (a worker or process that died).
    public var leaseMilliseconds: Int64 = 60_000
    /// The longest sleep between looks at the queue (pushes another node queued, retries coming due).
    public var pollMilliseconds: Int64 = 1_000
    /// One request's limit; a provider that hangs is retried later.
    public var requestTimeoutMilliseconds = 15_000
    /// Certificates to trust instead of the system's (tests' stand-ins).
    public var caFile: String?
    public var retry = PushRetryPolicy()
    /// A push whose lease ran out this many claims in a row with no outcome recorded, the last one held by a process
    /// that is gone (it died while handling the push), is quarantined: taken out of the queue, logged and counted, never
    /// handled again (``PushQuarantine``). Three lets a push survive a crash or two for reasons of its own; one that
    /// keeps killing the server stops at the third.
    public var quarantineAfterLapsedClaims = 3

    public init() {}
}

/// Delivers the store's push queue to the providers: threads of its own (never an event loop or the sync thread), each
/// with its own store connection and HTTP connection, claiming due rows under a lease and settling each by the
/// provider's answer: accepted (gone from the queue), retried with backoff and jitter until it expires (Retry-After
/// honoured), refused for good (dropped), or the target gone (forgotten).
///
/// Nothing is lost across a crash: a row leaves the queue only once its provider accepted it; a row whose worker died
/// is claimed again when its lease ends. Order per device: the store hands out only the oldest row of each target.
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

    /// Starts the workers.
    public func start() {
        for client in clients {
            for index in 0..<max(settings.concurrency, 1) {
                finished.enter()
                let thread = Thread { [self] in
                    work(client)
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

    private func work(_ client: any PushProviderClient) {
        var opened: (any PushQueueStore)?
        while opened == nil, !stopping.load(ordering: .relaxed) {
            do { opened = try makeStore() } catch {
                logger.error("push worker cannot open the store; retrying", metadata: ["provider": "\(client.provider.rawValue)", "error": "\(error)"])
                signal.wait(after: signal.current, milliseconds: 5_000)
            }
        }
        guard let store = opened else { return }
        let transfer = HTTPTransfer(caFile: settings.caFile, timeoutMilliseconds: settings.requestTimeoutMilliseconds)
        while !stopping.load(ordering: .relaxed) {
            let seen = signal.current
            let now = Self.wallMilliseconds()
            let claimed: [PushDeliveryRecord]
            do {
                claimed = try store.claimPushDeliveries(
                    provider: client.provider, limit: settings.claimBatch, now: now, leaseMilliseconds: settings.leaseMilliseconds)
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
                if stopping.load(ordering: .relaxed) { break }  // the rest's leases run out; the next start sends them
                deliver(delivery, with: client, over: transfer, store: store)
            }
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
