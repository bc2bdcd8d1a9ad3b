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

    public init() {}
}

/// `--push-preview`: what a push says.
public enum PushPreviewLevel: String, Sendable, CaseIterable {
    /// Sender (or group) and the message's preview text (T10).
    case full
    /// Sender only: "New message".
    case sender
    /// Nothing identifying: "New message" from "Herald".
    case none
}
