import HeraldClient
import HeraldProtocol
import HeraldRules

/// What a ``HeraldSession`` connects with: the server, the user's token, and how the device behaves.
public struct HeraldConfiguration: Sendable {
    /// The server's WebSocket URL, `ws://host:port` or `wss://host:port`.
    public var server: String
    /// An access token from `herald-server token <user>` (or the app's backend); it names the user.
    public var token: String
    /// The device's name on the server: pushes and sign-outs name devices, so an app gives one that lasts.
    public var deviceName: String?
    /// Where the session keeps its unsent messages, so they go out after a restart with the ids they were given
    /// (R4: stored once), e.g. ``PendingMessageFile``; nil keeps them in memory only.
    public var pendingMessageStore: (any PendingMessageStore)?
    /// Liveness: a ping after this long without anything read, and the connection counts as lost when nothing answers,
    /// so a frozen server shows offline within two intervals. nil turns the pings off.
    public var livenessInterval: Duration? = .seconds(15)
    /// How long a toast stays (T2 clamps it to 1-10 s).
    public var toastDuration: Duration = .seconds(3)
    /// Which certificates a `wss://` server may present.
    public var trust: ServerTrust = .system
    /// Offer permessage-deflate (RFC 7692).
    public var compression = true
    /// A push token the session registers after its first sync, so the server reaches the device while it has no
    /// connection.
    public var pushToken: PushToken?
    /// The byte stream to the server, when the app brings its own (for example on Apple's Network framework, with its
    /// TLS); nil uses the library's TCP socket, with TLS for `wss://` (``trust`` then says which certificates pass).
    public var transport: (any HeraldTransport)?

    /// A configuration with the defaults for everything but the server and the token.
    public init(server: String, token: String) {
        self.server = server
        self.token = token
    }
}

/// The certificates a `wss://` connection accepts.
public enum ServerTrust: Sendable, Equatable {
    /// The system's certificate store.
    case system
    /// Exactly the CAs in this PEM file (a private CA).
    case caFile(String)
    /// Any certificate: for tests only, since anyone on the path could read the traffic.
    case insecure
}

/// A push token for one provider, registered with the server after the first sync.
public enum PushToken: Sendable, Equatable {
    /// An APNs device token (hex) for the app's bundle id; `sandbox` for the development environment.
    case apns(token: String, topic: String, sandbox: Bool)
    /// A Firebase Cloud Messaging registration token.
    case fcm(token: String)
    /// A Web Push subscription: its endpoint URL, public key and auth secret (base64url).
    case webPush(endpoint: String, p256dh: String, auth: String)

    var registration: PushRegistration {
        switch self {
        case .apns(let token, let topic, let sandbox): PushRegistration(provider: "apns", token: token, topic: topic, sandbox: sandbox)
        case .fcm(let token): PushRegistration(provider: "fcm", token: token)
        case .webPush(let endpoint, let p256dh, let auth): PushRegistration(provider: "webpush", endpoint: endpoint, p256dh: p256dh, auth: auth)
        }
    }
}

extension HeraldConfiguration {
    /// The client's options for this configuration, or why there are none.
    func clientOptions() throws(HeraldError) -> ClientOptions {
        let address: ServerAddress
        switch ServerAddress.parse(server) {
        case .success(let value): address = value
        case .failure(let error): throw .invalidConfiguration("server: \(error)")
        }
        if let deviceName, !Identifiers.isDeviceName(deviceName) {
            throw .invalidConfiguration("deviceName must be \(Identifiers.deviceNameRule)")
        }
        var options = ClientOptions(
            server: address, token: token, interactive: false, viewportSize: ThreadViewport.defaultSize,
            toastDuration: Milliseconds(duration: toastDuration), openURL: nil,
            caFile: { if case .caFile(let path) = trust { return path } else { return nil } }(),
            insecure: trust == .insecure, compression: compression, deviceName: deviceName)
        options.embedded = true
        options.livenessInterval = livenessInterval.map { Milliseconds(duration: $0) }
        options.pushRegistration = pushToken?.registration
        return options
    }
}

extension Milliseconds {
    /// A duration in whole milliseconds, clamped to what Int64 holds.
    init(duration: Duration) {
        let (seconds, attoseconds) = duration.components
        let (scaled, overflow) = seconds.multipliedReportingOverflow(by: 1000)
        self.init(overflow ? (seconds < 0 ? .min : .max) : scaled.addingReportingOverflow(attoseconds / 1_000_000_000_000_000).partialValue)
    }
}
