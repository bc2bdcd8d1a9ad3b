import HeraldProtocol
import HeraldRules

/// What the client is told at start (flags), independent of IO.
public struct ClientConfiguration: Sendable {
    /// The user id the token stands for.
    public var user: String
    /// Messages in the thread viewport (`--viewport`, default 10).
    public var viewportSize: Int
    /// Toast duration (`--toast-duration-seconds` seconds, T2 clamps it to 1-10 s).
    public var toastDuration: Milliseconds
    /// A tag unique to this process, part of every clientMessageId (R4).
    public var deviceTag: String
    /// The Web Push subscription this device registers after it syncs (`--push webpush`), so the server can alert it
    /// while it has no connection (`lock`); nil: alerts only while connected.
    public var pushSubscription: PushRegistration?
    /// A send the server refuses as `rate_limited` waits and goes out again (the interactive client: a person's paste
    /// or fast typing must not lose messages); false: the refusal is the answer (the script contract).
    public var pacesRateLimitedSends = false

    public init(user: String, viewportSize: Int = ThreadViewport.defaultSize, toastDuration: Milliseconds = .seconds(3), deviceTag: String) {
        self.user = user
        self.viewportSize = max(1, viewportSize)
        self.toastDuration = toastDuration
        self.deviceTag = deviceTag
    }
}
