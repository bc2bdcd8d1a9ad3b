/// The services a device without a connection is reached through.
public enum PushProvider: String, Sendable, Equatable, CaseIterable {
    /// Apple Push Notification service (HTTP/2, token-based auth).
    case apns
    /// Firebase Cloud Messaging, HTTP v1 API.
    case fcm
    /// A browser's push service (RFC 8030, payloads encrypted per RFC 8291, VAPID per RFC 8292).
    case webpush
    /// The app's own backend: a signed JSON POST to the URL the server is configured with.
    case webhook
}

/// Where one device of a user is alerted while it has no connection: its provider and address there.
///
/// One row per (user, device): a device registering again replaces its target (a new APNs token after a restore,
/// a new Web Push subscription).
public struct PushTargetRecord: Sendable, Equatable {
    /// Row id; deliveries name their target by it.
    public var id: Int64
    /// The device's user.
    public var user: String
    /// The device's name (the `device` it connects with), so a live connection of it is recognised (one alert per
    /// device, whichever path reaches it).
    public var device: String
    public var provider: PushProvider
    /// The address at the provider: the APNs device token (hex), the FCM registration token, the Web Push
    /// subscription's endpoint URL, or the app's own id for the device (webhook).
    public var token: String
    /// APNs: the app's bundle id (`apns-topic`).
    public var topic: String?
    /// APNs: the development environment (api.sandbox.push.apple.com).
    public var sandbox: Bool
    /// Web Push: the subscription's P-256 public key, base64url (65 bytes uncompressed).
    public var p256dh: String?
    /// Web Push: the subscription's authentication secret, base64url (16 bytes).
    public var auth: String?
    /// Registration time, ms since the epoch (updated when the device registers again).
    public var updatedAt: Int64

    public init(
        id: Int64 = 0, user: String, device: String, provider: PushProvider, token: String, topic: String? = nil, sandbox: Bool = false,
        p256dh: String? = nil, auth: String? = nil, updatedAt: Int64 = 0
    ) {
        self.id = id
        self.user = user
        self.device = device
        self.provider = provider
        self.token = token
        self.topic = topic
        self.sandbox = sandbox
        self.p256dh = p256dh
        self.auth = auth
        self.updatedAt = updatedAt
    }
}

/// What a queued push says.
public enum PushDeliveryKind: String, Sendable, Equatable {
    /// A new message (P1, P2).
    case message
    /// A bell notification (B1).
    case bell
    /// Take back an alert already delivered: its message or notification was read elsewhere (P5).
    case withdraw
}

/// One push waiting in the store's durable queue for a device without a connection.
///
/// The content is written when the push is decided, already cut to what `--push-preview` allows, so the queue never
/// holds more than may cross a third party.
public struct PushDeliveryRecord: Sendable, Equatable {
    public var id: Int64
    /// The device it goes to (joined from its target row).
    public var target: PushTargetRecord
    public var kind: PushDeliveryKind
    /// Wire ids ("c1", "m5", "n3"): what the alert is about, or what a withdrawal takes back.
    public var conversation: String?
    public var message: String?
    public var notification: String?
    public var sender: String?
    /// The alert's title and text (empty in a withdrawal).
    public var title: String
    public var body: String
    /// The deep link (D1).
    public var url: String?
    /// The app icon badge as of the decision (U5 for messages, B2 for the bell).
    public var badge: Int
    /// When it was decided, and after when it is dropped undelivered (ms since the epoch).
    public var createdAt: Int64
    public var expiresAt: Int64
    /// Attempts made so far (for backoff).
    public var attempts: Int
    /// N3: the recipient has quiet hours on: the provider shows it without sound or banner.
    public var quiet = false
    /// N2: the message mentions the recipient.
    public var mentioned = false
    /// `--push-preview none`: the opaque id the push carries instead of any conversation, message, notification or user
    /// id (the alert's own outbox row, `p<id>`, or its notification; one recipient's, so unlinkable across users). The
    /// app resolves it once awake (`push.resolve`); a withdrawal names the same reference as its alert. Nil: the push
    /// carries the P2 ids.
    public var reference: String?
    /// Claims in a row whose lease ran out with no outcome recorded: a worker (or the whole process) died while
    /// handling it. The gateway quarantines a push past its limit instead of handling it again.
    public var lapsedClaims = 0
    /// When the lease of the claim before this one ended, if it ran out with no outcome (ms since the epoch): so the
    /// gateway can tell a worker of its own that was merely slow from a process that died holding the push.
    public var previousLeaseEnd: Int64?

    public init(
        id: Int64 = 0, target: PushTargetRecord, kind: PushDeliveryKind, conversation: String? = nil, message: String? = nil,
        notification: String? = nil, sender: String? = nil, title: String = "", body: String = "", url: String? = nil, badge: Int = 0,
        createdAt: Int64, expiresAt: Int64, attempts: Int = 0
    ) {
        self.id = id
        self.target = target
        self.kind = kind
        self.conversation = conversation
        self.message = message
        self.notification = notification
        self.sender = sender
        self.title = title
        self.body = body
        self.url = url
        self.badge = badge
        self.createdAt = createdAt
        self.expiresAt = expiresAt
        self.attempts = attempts
    }
}

/// The durable push queue as the delivery workers see it: claim what is due, then settle each claim.
///
/// Claims are leases: a worker that dies (or a process SIGKILLed) leaves rows that become due again when the lease
/// runs out, so nothing queued is lost. Order per device is kept: a target's later rows wait while an earlier one is
/// claimed or backing off.
public protocol PushQueueStore: AnyObject {
    /// Up to `limit` due rows of `provider`'s targets, each the oldest of its target; leased until
    /// `now + leaseMilliseconds`, with its attempt counted.
    func claimPushDeliveries(provider: PushProvider, limit: Int, now: Int64, leaseMilliseconds: Int64) throws -> [PushDeliveryRecord]
    /// The provider accepted it: the row goes.
    func completePushDelivery(id: Int64) throws
    /// Try again at `at` (backoff or Retry-After); the lease ends.
    func retryPushDelivery(id: Int64, at: Int64) throws
    /// Not sent now, for its host's sake (its share busy, backing off, its retry budget spent): due again at `at`, the
    /// lease ends, and the attempt the claim counted is given back, so waiting for a host never counts as trying.
    func deferPushDelivery(id: Int64, at: Int64) throws
    /// Never deliverable (expired, refused for good): the row goes.
    func dropPushDelivery(id: Int64) throws
    /// The provider says the target is gone (APNs 410, FCM UNREGISTERED, Web Push 404/410): the target and its
    /// queued rows go, unless the device registered again since `registeredAt` (then the new address is kept).
    func removePushTarget(id: Int64, registeredAt: Int64) throws
    /// Rows waiting (metrics).
    func pushQueueDepth() throws -> Int
    /// The earliest `next_attempt_at` of a waiting row, if any (so a worker sleeps until then).
    func nextPushAttempt() throws -> Int64?
}
