import HeraldStoreProtocol
import HeraldSync

/// How the server alerts devices that have no connection: what a push reveals, how long it is worth delivering, how the
/// delivery workers run, and each provider's credentials (files, never values on the command line).
public struct PushOptions: Sendable {
    public var preview: PushPreviewLevel = .full
    /// How long an undelivered push is kept trying (and its TTL at the provider), seconds.
    public var timeToLiveSeconds = 86_400
    /// Web Push endpoints on loopback, over https or plain http (tests, local development).
    public var allowsLoopbackHTTP = false
    /// Requests in flight per provider.
    public var concurrency = 4
    /// Requests in flight to one Web Push site (a tarpit holds no more of the provider's workers than this).
    public var hostConcurrency = 2
    /// A request that receives nothing for this long is given up, ms (whole seconds); the connect phase has as long.
    public var stallTimeoutMs = 5_000
    /// Tests only: `host:port:address` entries that replace name resolution for push requests (curl's --resolve); the
    /// address is still checked at connect time.
    public var testResolve: [String] = []
    /// The longest wait between two attempts of one push, ms.
    public var maxBackoffMs = 60_000
    /// Push targets one user may register (one per device).
    public var maxTargetsPerUser = PushSettings.defaultMaxTargetsPerUser
    /// The longest a provider's Retry-After holds one push back, seconds (longer asks are cut to this).
    public var maxRetryAfterSeconds = 3_600
    /// PEM certificates trusted for providers instead of the system's (tests' stand-ins, a corporate proxy).
    public var caFile: String?

    public var apnsKeyFile: String?
    public var apnsKeyID: String?
    public var apnsTeamID: String?
    /// Overrides Apple's hosts (both environments).
    public var apnsURL: String?

    public var fcmServiceAccountFile: String?
    /// Overrides https://fcm.googleapis.com.
    public var fcmURL: String?

    public var vapidKeyFile: String?
    public var vapidSubject: String?

    public var webhookURL: String?
    public var webhookSecretFile: String?

    public init() {}

    /// The providers whose credentials are configured.
    public var providers: Set<PushProvider> {
        var providers: Set<PushProvider> = []
        if apnsKeyFile != nil { providers.insert(.apns) }
        if fcmServiceAccountFile != nil { providers.insert(.fcm) }
        if vapidKeyFile != nil { providers.insert(.webpush) }
        if webhookURL != nil { providers.insert(.webhook) }
        return providers
    }

    /// Credentials given in part: a server that would accept a provider's targets and never reach it.
    func validate() throws(OptionsError) {
        let groups: [(provider: String, given: [(String, String?)])] = [
            ("apns", [("apns-key-file", apnsKeyFile), ("apns-key-id", apnsKeyID), ("apns-team-id", apnsTeamID)]),
            ("webpush", [("vapid-key-file", vapidKeyFile), ("vapid-subject", vapidSubject)]),
            ("webhook", [("webhook-url", webhookURL), ("webhook-secret-file", webhookSecretFile)]),
        ]
        for group in groups {
            let missing = group.given.filter { $0.1 == nil }.map { "--" + $0.0 }
            if !missing.isEmpty && missing.count < group.given.count {
                let given = group.given.first { $0.1 != nil }!
                throw OptionsError(name: given.0, value: given.1 ?? "", expected: "\(missing.joined(separator: " and ")) as well, for \(group.provider) pushes")
            }
        }
        if !(1...64).contains(concurrency) { throw OptionsError(name: "push-concurrency", value: String(concurrency), expected: "1...64") }
        if !(1...64).contains(hostConcurrency) { throw OptionsError(name: "push-host-concurrency", value: String(hostConcurrency), expected: "1...64") }
        if !(1_000...60_000).contains(stallTimeoutMs) { throw OptionsError(name: "push-stall-timeout-ms", value: String(stallTimeoutMs), expected: "1000...60000 ms") }
        if !(1_000...3_600_000).contains(maxBackoffMs) { throw OptionsError(name: "push-max-backoff-ms", value: String(maxBackoffMs), expected: "1000...3600000 ms") }
        if !(1...1_000).contains(maxTargetsPerUser) {
            throw OptionsError(name: "push-max-targets-per-user", value: String(maxTargetsPerUser), expected: "1...1000")
        }
        if !(1...3_600).contains(maxRetryAfterSeconds) {
            throw OptionsError(name: "push-max-retry-after-seconds", value: String(maxRetryAfterSeconds), expected: "1...3600 seconds")
        }
        if !(0...28 * 86_400).contains(timeToLiveSeconds) {
            throw OptionsError(name: "push-ttl-seconds", value: String(timeToLiveSeconds), expected: "0...2419200 seconds (28 days, FCM's limit)")
        }
    }
}
