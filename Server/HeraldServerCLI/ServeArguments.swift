import ArgumentParser
import HeraldServer

/// Every setting of ``HeraldServerOptions/settings`` as an option of `serve`, so that ArgumentParser parses them, lists
/// them in `--help` and suggests the nearest name for a misspelt one (`--prot` → `--port`). Each property is named after
/// its setting (`pushGraceSeconds` is `--push-grace-seconds`); what a value means, its variable, default and checks stay
/// in the table, which ``given()`` hands the values to.
struct ServeArguments: ParsableArguments {
    @Option(help: SettingArguments.help("host")) var host: String?
    @Option(help: SettingArguments.help("port")) var port: String?
    @Option(help: SettingArguments.help("threads")) var threads: String?
    @Flag(inversion: .prefixedNo, help: SettingArguments.help("bench-endpoints")) var benchEndpoints: Bool?
    @Flag(inversion: .prefixedNo, help: SettingArguments.help("compression")) var compression: Bool?
    @Option(help: SettingArguments.help("db")) var db: String?
    @Option(help: SettingArguments.help("store")) var store: String?
    @Option(help: SettingArguments.help("api-rate-limit")) var apiRateLimit: String?
    @Option(help: SettingArguments.help("api-max-body-bytes")) var apiMaxBodyBytes: String?
    @Option(help: SettingArguments.help("secret-file")) var secretFile: String?
    @Option(help: SettingArguments.help("secret")) var secret: String?
    @Option(help: SettingArguments.help("push-grace-seconds")) var pushGraceSeconds: String?
    @Option(help: SettingArguments.help("edit-window-seconds")) var editWindowSeconds: String?
    @Option(help: SettingArguments.help("unsend-window-seconds")) var unsendWindowSeconds: String?
    @Option(help: SettingArguments.help("user-daily-quota-bytes")) var userDailyQuotaBytes: String?
    @Option(help: SettingArguments.help("push-preview")) var pushPreview: String?
    @Option(help: SettingArguments.help("push-ttl-seconds")) var pushTtlSeconds: String?
    @Option(help: SettingArguments.help("push-concurrency")) var pushConcurrency: String?
    @Option(help: SettingArguments.help("push-host-concurrency")) var pushHostConcurrency: String?
    @Option(help: SettingArguments.help("push-stall-timeout-ms")) var pushStallTimeoutMs: String?
    @Option(help: SettingArguments.help("push-test-resolve")) var pushTestResolve: String?
    @Option(help: SettingArguments.help("push-max-backoff-ms")) var pushMaxBackoffMs: String?
    @Option(help: SettingArguments.help("push-max-targets-per-user")) var pushMaxTargetsPerUser: String?
    @Option(help: SettingArguments.help("push-max-retry-after-seconds")) var pushMaxRetryAfterSeconds: String?
    @Flag(inversion: .prefixedNo, help: SettingArguments.help("push-allow-http-loopback")) var pushAllowHttpLoopback: Bool?
    @Option(help: SettingArguments.help("push-ca-file")) var pushCaFile: String?
    @Option(help: SettingArguments.help("apns-key-file")) var apnsKeyFile: String?
    @Option(help: SettingArguments.help("apns-key-id")) var apnsKeyId: String?
    @Option(help: SettingArguments.help("apns-team-id")) var apnsTeamId: String?
    @Option(help: SettingArguments.help("apns-url")) var apnsUrl: String?
    @Option(help: SettingArguments.help("fcm-service-account-file")) var fcmServiceAccountFile: String?
    @Option(help: SettingArguments.help("fcm-url")) var fcmUrl: String?
    @Option(help: SettingArguments.help("vapid-key-file")) var vapidKeyFile: String?
    @Option(help: SettingArguments.help("vapid-subject")) var vapidSubject: String?
    @Option(help: SettingArguments.help("webhook-url")) var webhookUrl: String?
    @Option(help: SettingArguments.help("webhook-secret-file")) var webhookSecretFile: String?
    @Option(help: SettingArguments.help("handshake-timeout-ms")) var handshakeTimeoutMs: String?
    @Option(help: SettingArguments.help("ping-interval-ms")) var pingIntervalMs: String?
    @Option(help: SettingArguments.help("idle-timeout-ms")) var idleTimeoutMs: String?
    @Option(help: SettingArguments.help("tick-ms")) var tickMs: String?
    @Option(help: SettingArguments.help("max-frame-bytes")) var maxFrameBytes: String?
    @Option(help: SettingArguments.help("max-message-bytes")) var maxMessageBytes: String?
    @Option(help: SettingArguments.help("max-connections")) var maxConnections: String?
    @Option(help: SettingArguments.help("max-connections-per-ip")) var maxConnectionsPerIp: String?
    @Option(help: SettingArguments.help("handshake-rate-per-ip")) var handshakeRatePerIp: String?
    @Option(help: SettingArguments.help("max-connections-per-user")) var maxConnectionsPerUser: String?
    @Option(help: SettingArguments.help("max-buffered-input-bytes-per-user")) var maxBufferedInputBytesPerUser: String?
    @Option(help: SettingArguments.help("max-buffered-input-bytes")) var maxBufferedInputBytes: String?
    @Option(help: SettingArguments.help("sync-user-batch-us")) var syncUserBatchUs: String?
    @Option(help: SettingArguments.help("sync-send-rate")) var syncSendRate: String?
    @Option(help: SettingArguments.help("sync-create-rate")) var syncCreateRate: String?
    @Option(help: SettingArguments.help("sync-social-rate")) var syncSocialRate: String?
    @Option(help: SettingArguments.help("sync-read-rate")) var syncReadRate: String?
    @Option(help: SettingArguments.help("sync-scene-rate")) var syncSceneRate: String?
    @Option(help: SettingArguments.help("max-text-bytes")) var maxTextBytes: String?
    @Option(help: SettingArguments.help("max-unanswered-requests")) var maxUnansweredRequests: String?
    @Option(help: SettingArguments.help("max-queued-bytes")) var maxQueuedBytes: String?
    @Option(help: SettingArguments.help("socket-send-buffer-bytes")) var socketSendBufferBytes: String?
    @Flag(inversion: .prefixedNo, help: SettingArguments.help("metrics")) var metrics: Bool?
    @Option(help: SettingArguments.help("metrics-token-file")) var metricsTokenFile: String?
    @Option(help: SettingArguments.help("warnings-per-second")) var warningsPerSecond: String?
    @Option(help: SettingArguments.help("warning-summary-interval-ms")) var warningSummaryIntervalMs: String?
    @Option(help: SettingArguments.help("log-level")) var logLevel: String?
    @Option(help: SettingArguments.help("tls-cert")) var tlsCert: String?
    @Option(help: SettingArguments.help("tls-key")) var tlsKey: String?
    @Option(help: SettingArguments.help("tls-port")) var tlsPort: String?

    /// The settings given on the command line, each with its text (a toggle's is `true` or `false`).
    ///
    /// - Throws: `ValidationError` when a property names no setting of the table (a declaration out of step with it).
    func given() throws -> [(ServerSetting, String)] {
        try Mirror(reflecting: self).children.compactMap { child -> (ServerSetting, String)? in
            let name = SettingArguments.optionName(property: child.label ?? "")
            let text: String?
            switch child.value {
            case let option as Option<String?>: text = option.wrappedValue
            case let flag as Flag<Bool?>: text = flag.wrappedValue.map { $0 ? "true" : "false" }
            default: text = nil
            }
            guard let text else { return nil }
            guard let setting = HeraldServerOptions.setting(name) else { throw ValidationError("serve declares --\(name), which no setting has") }
            return (setting, text)
        }
    }
}
