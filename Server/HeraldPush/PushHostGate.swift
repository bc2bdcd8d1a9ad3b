/// One provider's share-out of its workers among the hosts its pushes go to, so that one slow or hostile host cannot
/// hold up the pushes of every other device, nor draw an unbounded number of requests:
///
/// - **a share**: at most `maxInFlight` requests to one host at a time; the provider's other workers stay free for
///   other hosts;
/// - **backoff**: a host that failed (no answer, a timeout, a 5xx, or a user-run Web Push host's 429) is closed for an
///   exponential backoff, and its rows are put off until then instead of each making its own request (one message to
///   a hundred targets on a failing host makes a few requests per backoff window, not a hundred);
/// - **a retry budget**: retries to one host draw on a token bucket (`retryBurst`, refilled at `retriesPerSecond`);
///   past it a retry is put off, not sent.
///
/// A row that is put off goes back to the queue for later without counting as an attempt (``PushQueueStore``'s
/// `deferPushDelivery`). Pure: the caller passes the time; one instance per provider, behind a lock.
struct PushHostGate: Sendable {
    struct Limits: Sendable {
        /// Requests in flight to one host.
        var maxInFlight: Int
        /// Retries (attempts after a row's first) one host may take at once, then `retriesPerSecond`; nil: no budget.
        var retryBurst: Int?
        var retriesPerSecond: Double
        /// A failing host's first backoff; each further consecutive failure doubles it, up to `backoffMaxMilliseconds`.
        var backoffBaseMilliseconds: Int64
        var backoffMaxMilliseconds: Int64
        /// Requests in flight to a browser vendor's push service (``isWellKnownPushService(_:)``): every Chrome user's
        /// subscriptions are on one such host, which no user controls, so it gets the provider's workers and no retry
        /// budget, as an operator-configured provider does.
        var wellKnownMaxInFlight: Int = 1
        /// How long a row waits when its host has no free share (a slot frees within a stall timeout at most).
        var busyPutOffMilliseconds: Int64 = 500
    }

    enum Admission: Sendable, Equatable {
        /// Send it now; ``finish(_:failed:now:)`` must follow.
        case send
        /// Put it off until then, for the reason given.
        case putOff(until: Int64, reason: String)
    }

    private struct Host {
        var inFlight = 0
        /// Consecutive failures.
        var failures = 0
        var closedUntil: Int64 = 0
        var tokens: Double
        var refilledAt: Int64
    }

    let limits: Limits
    private var hosts: [String: Host] = [:]
    /// Hosts remembered before idle ones are forgotten (each a few dozen bytes); the ones in flight or backing off stay.
    private let maxHosts = 10_000
    /// When idle hosts were last forgotten: at most once a second, so a full table costs one sweep, not one per push.
    private var forgottenAt: Int64 = 0

    init(limits: Limits) {
        self.limits = limits
    }

    /// Whether a request to `host` may go now; `isRetry`: the row was attempted before.
    mutating func admit(_ host: String, isRetry: Bool, now: Int64) -> Admission {
        if hosts.count >= maxHosts, now - forgottenAt >= 1_000 {
            forgetIdle(now: now)
            forgottenAt = now
        }
        var state = hosts[host] ?? Host(tokens: Double(limits.retryBurst ?? 0), refilledAt: now)
        defer { hosts[host] = state }
        if state.closedUntil > now { return .putOff(until: state.closedUntil, reason: "the host failed \(state.failures) time(s) in a row; backing off") }
        if state.inFlight >= max(Self.isWellKnownPushService(host) ? limits.wellKnownMaxInFlight : limits.maxInFlight, 1) {
            return .putOff(until: now + limits.busyPutOffMilliseconds, reason: "the host has its share of requests in flight")
        }
        if isRetry, let burst = limits.retryBurst, !Self.isWellKnownPushService(host) {
            let elapsed = Double(max(now - state.refilledAt, 0))
            state.tokens = min(Double(burst), state.tokens + elapsed * limits.retriesPerSecond / 1_000)
            state.refilledAt = now
            if state.tokens < 1 {
                // Until the next token, capped before the conversion (a tiny rate would make a Double no Int64 holds).
                let cap = Double(limits.backoffMaxMilliseconds)
                let wait = limits.retriesPerSecond > 0 ? min(((1 - state.tokens) * 1_000 / limits.retriesPerSecond).rounded(.up), cap) : cap
                return .putOff(until: now + max(Int64(wait), 1), reason: "the host's retry budget is spent")
            }
            state.tokens -= 1
        }
        state.inFlight += 1
        return .send
    }

    /// The request admitted for `host` ended: `failed` true (no answer, 429, 5xx), false (any other answer), or nil
    /// when no request was made after all (the push could not be built).
    mutating func finish(_ host: String, failed: Bool?, now: Int64) {
        guard var state = hosts[host] else { return }
        state.inFlight = max(state.inFlight - 1, 0)
        switch failed {
        case true?:
            state.failures = min(state.failures + 1, 62)
            let exponent = Int64(min(state.failures - 1, 30))
            let backoff = min(limits.backoffBaseMilliseconds << exponent, limits.backoffMaxMilliseconds)
            state.closedUntil = max(state.closedUntil, now + backoff)
        case false?:
            state.failures = 0
            state.closedUntil = 0
        case nil: break
        }
        hosts[host] = state
    }

    /// Hosts with nothing in flight and no backoff running: forgetting one at most refills its retry budget.
    private mutating func forgetIdle(now: Int64) {
        hosts = hosts.filter { $0.value.inFlight > 0 || $0.value.closedUntil > now }
    }

    /// Whether a request that came to `summary` counts as the host failing: no answer, or a 5xx; a 429 too when
    /// `tooManyRequestsIsTheHost` (a Web Push service throttling this server). APNs and FCM answer 429 for one device
    /// token sent too much, which says nothing about the host, so one such device never holds up the others.
    static func failed(_ summary: TransferSummary?, tooManyRequestsIsTheHost: Bool) -> Bool? {
        switch summary {
        case nil: nil
        case .noAnswer?: true
        case .answered(let status)?: (status == 429 && tooManyRequestsIsTheHost) || (500..<600).contains(status)
        }
    }

    /// The key a Web Push endpoint's host is shared out by: its site, the last two labels of its name
    /// (`a.tarpit.example` and `b.tarpit.example` are one share, so a wildcard domain gets one share, not one per name),
    /// or the whole address for an IP literal. Two labels group some unrelated sites (`x.co.uk`, `y.co.uk`): they share
    /// a share, which costs them some concurrency, never a push.
    static func site(ofEndpoint url: String) -> String {
        let host = HTTPTransfer.host(of: url).lowercased()
        if host.contains(":") || host.allSatisfy({ $0.isNumber || $0 == "." }) || isWellKnownPushService(host) { return host }
        let labels = host.split(separator: ".", omittingEmptySubsequences: true)
        return labels.suffix(2).joined(separator: ".")
    }

    /// The push services of the browsers (Chrome's FCM, Firefox's autopush, Safari's, Edge's WNS): where nearly every
    /// real subscription lives. Their hosts are run by the vendors, not by users, so one of them is not a tarpit to
    /// contain; shared out like a user's host, every browser user's push would queue behind two requests.
    static func isWellKnownPushService(_ host: String) -> Bool {
        switch host {
        case "fcm.googleapis.com", "updates.push.services.mozilla.com", "web.push.apple.com": true
        default: host.hasSuffix(".notify.windows.com")
        }
    }
}
