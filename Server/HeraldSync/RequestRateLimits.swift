import HeraldProtocol

/// The budgets that /sync requests which write spend, one token bucket per user each. A request that would overspend
/// is answered `rate_limited` (the connection stays open) and writes nothing.
///
/// Reads (`sync`, `conversations`, `history`, `bell`) spend none: each connection has a bounded number in flight, so
/// they cost time, not storage.
public enum RequestRateClass: String, CaseIterable, Sendable {
    /// `send`: messages (stored, fanned out, maybe pushed).
    case send
    /// `dm`, `group`: conversations (stored for every member, in every member's snapshot).
    case create
    /// `follow`, `react`: notifications in someone else's bell, which keeps only its newest 100.
    case social
    /// `ack`, `bell.read`, `bell.readAll`, `mute`, `unmute`, `quiet`, `markUnread`: read state, receipts, alert
    /// settings and badge events.
    case read
    /// `scene`: presence and push decisions of every conversation the device looks at.
    case scene

    /// What the refusal says was too frequent.
    var noun: String {
        switch self {
        case .send: "messages"
        case .create: "new conversations"
        case .social: "follows and reactions"
        case .read: "read marks"
        case .scene: "scene reports"
        }
    }
}

/// A sustained rate and the burst allowed at once.
public struct RequestRate: Sendable, Equatable {
    /// Requests per second; 0 disables the limit.
    public var perSecond: Double
    /// Requests allowed at once after a quiet spell.
    public var burst: Double

    public init(perSecond: Double, burst: Double) {
        self.perSecond = perSecond
        self.burst = burst
    }

    /// `perSecond` with a burst of `seconds`' worth (at least 1).
    public static func perSecond(_ rate: Double, burstSeconds seconds: Double) -> RequestRate {
        RequestRate(perSecond: rate, burst: max(1, rate * seconds))
    }

    /// No limit.
    public static let unlimited = RequestRate(perSecond: 0, burst: 1)
}

extension ClientRequest {
    /// The budget this request spends; nil for reads.
    var rateClass: RequestRateClass? {
        switch self {
        case .send: .send
        case .editMessage, .unsendMessage: .send
        case .dm, .group, .signOut, .leave, .pushRegister, .pushUnregister: .create
        case .renameGroup, .addMember, .removeMember: .create
        case .follow, .react: .social
        case .ack, .bellRead, .bellReadAll: .read
        case .mute, .unmute, .quiet, .markUnread: .read
        case .scene: .scene
        case .sync, .conversations, .history, .search, .bell, .members, .users, .pushResolve: nil
        // Typing has its own per-device budget (E1), always on: see SyncCore+Typing.
        case .typingStart, .typingStop: nil
        }
    }
}

/// The per-user buckets of every class, owned by the sync thread.
struct RequestRateLimits {
    private var buckets: [RequestRateClass: TokenBuckets<String>] = [:]

    init(_ rates: [RequestRateClass: RequestRate]) {
        for (rateClass, rate) in rates where rate.perSecond > 0 {
            buckets[rateClass] = TokenBuckets(ratePerSecond: rate.perSecond, burst: rate.burst)
        }
    }

    /// Spends one of `user`'s tokens for `request`; throws `rate_limited` (with the wait) when there is none.
    mutating func spend(for request: ClientRequest, user: String, nowMs: Int64) throws(ErrorInfo) {
        guard let rateClass = request.rateClass, let waitMs = buckets[rateClass]?.take(user, nowMs: nowMs) else { return }
        throw ErrorInfo(.rateLimited, "too many \(rateClass.noun); retry in \(waitMs) ms")
    }
}
