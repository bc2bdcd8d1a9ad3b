import HeraldStoreProtocol

/// How this server alerts devices that have no connection (locked phones, closed browsers).
public struct PushSettings: Sendable {
    /// The providers with credentials on this server; registering a target of another is refused.
    public var providers: Set<PushProvider> = []
    /// What a push reveals to the provider and the lock screen (payloads cross third parties).
    public var preview: PushPreviewLevel = .full
    /// How long an undelivered push is worth delivering (the provider's TTL/expiration too).
    public var timeToLiveMilliseconds: Int64 = 24 * 3_600_000
    /// Web Push endpoints on loopback, over https or plain http (tests and local development only); otherwise https to a
    /// public DNS name only.
    public var allowsLoopbackHTTP = false
    /// Push targets one user may have (one per device: a device registering again replaces its own). Each target is
    /// a request per message to a host the user chose, so without a cap one account could make every message to it
    /// fan out to any number of connections.
    public var maxTargetsPerUser = PushSettings.defaultMaxTargetsPerUser

    /// Enough for a person's phones, tablets and browsers.
    public static let defaultMaxTargetsPerUser = 10

    public init() {}
}

/// `--push-preview`: what a push says to its provider (and the lock screen).
public enum PushPreviewLevel: String, Sendable, CaseIterable {
    /// P2 in full: title (sender or group) and the T10 preview text, the sender's id, conversation and message ids,
    /// and the deep link; a bell push its text, actor and link.
    case full
    /// As `full`, with the text replaced by "New message".
    case sender
    /// Nothing identifying: "New message" from "Herald", the badge and an opaque `ref` (the push's outbox id, or a bell
    /// push's notification id) the app resolves once awake (`push.resolve`); no user id, name, title, text,
    /// conversation or message id, or link. A webhook body leaves out the recipient's user and device names too.
    case none
}
