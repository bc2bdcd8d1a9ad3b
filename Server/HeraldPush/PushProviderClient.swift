import HeraldStoreProtocol

/// One push provider's protocol: how a queued push becomes its HTTP request, and what its answers mean.
///
/// Building and reading are pure; the only IO a client may do is fetching its own credentials (FCM's OAuth token)
/// through the `send` it is given, on the worker's thread. Clients are shared by a provider's workers, so their
/// credential caches are locked.
public protocol PushProviderClient: AnyObject, Sendable {
    var provider: PushProvider { get }
    /// The request that delivers `delivery`; `send` reaches the network for credentials, if the provider needs any.
    func request(for delivery: PushDeliveryRecord, now: Int64, send: (OutboundRequest) -> Result<HTTPResponse, TransferError>) throws(PushProviderError)
        -> OutboundRequest
    /// What the provider's answer means for the queued push.
    func outcome(of response: HTTPResponse, for delivery: PushDeliveryRecord) -> DeliveryOutcome
    /// The provider refused the credentials: the next request makes new ones.
    func invalidateCredentials()
}

/// Why a provider client could not make a request.
public struct PushProviderError: Error, Sendable, CustomStringConvertible {
    public enum Kind: Sendable {
        /// This push can never be sent (a target's keys are unusable, the payload cannot be encrypted): drop it.
        case unsendable
        /// Credentials could not be had right now (the token endpoint is down): retry later.
        case credentialsUnavailable
    }
    public var kind: Kind
    public var message: String

    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { message }
}

/// Credentials a server is started with that cannot work (a key that does not parse, a file missing a field).
public struct PushConfigurationError: Error, Sendable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
