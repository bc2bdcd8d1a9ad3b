import Logging
import HeraldSync

extension HeraldServerOptions {
    /// Every setting of the server, once: flag, variable, help, default and how its value is read and checked. `serve`
    /// takes all of them, `token` and `apikey` the store and secret ones; ``init(environment:)`` reads their variables.
    // Built once (each setting reads its default from a fresh `HeraldServerOptions()`, so building the table costs
    // thousands of those when every option's help looks a setting up): a constant whose closures only write the options
    // they are handed, hence safe to share though closures are not `Sendable`.
    nonisolated(unsafe) public static let settings: [ServerSetting] = makeSettings()

    private static func makeSettings() -> [ServerSetting] {
        let defaults = HeraldServerOptions()
        return [
            .text("host", \.host, "Address to bind."),
            .integer("port", \.port, "Port to bind; 0 picks a free one."),
            .integer("threads", \.threads, "Event-loop threads.", default: "cores"),
            .toggle(
                "bench-endpoints", \.benchEndpoints,
                "Benchmarks and tests only: serve GET /echo (a WebSocket echo) and the broadcast endpoint on unrouted paths."),
            .toggle("compression", \.compression, "Accept permessage-deflate (RFC 7692) from clients that offer it."),
            .text("db", \.dbPath, "SQLite database file."),
            ServerSetting(
                name: "store", form: .value(placeholder: "store"),
                help: "Shared PostgreSQL store (postgres://user@host:port/db) instead of --db, for several nodes.", defaultText: nil
            ) { text, options in
                guard text.hasPrefix("postgres://") || text.hasPrefix("postgresql://") else { return "a postgres:// or postgresql:// URL" }
                options.store = text
                return nil
            },
            ServerSetting(
                name: "api-rate-limit", form: .value(placeholder: "api-rate-limit"),
                help: "Requests per second each /api/v1 key may make (burst: twice that); 0 = unlimited.",
                defaultText: ServerSetting.shown(defaults.api.rateLimitPerSecond)
            ) { text, options in
                guard let rate = Double(text), rate >= 0, rate.isFinite else { return "a number >= 0" }
                options.api.rateLimitPerSecond = rate
                // Capped before the conversion: a finite but huge rate (1e300) would trap in Int(_:).
                options.api.rateLimitBurst = max(1, Int(min((2 * rate).rounded(.up), Double(Int32.max))))
                return nil
            },
            .positiveInteger("api-max-body-bytes", \.api.maxBodySize, "Largest /api/v1 request body in bytes."),
            .optionalText(
                "secret-file", \.secretFile,
                "File holding the token signing secret (mode 0600, one trailing newline ignored); default: the one stored in the database."),
            .optionalText("secret", \.secret, "Token signing secret as an argument: visible in ps, prefer --secret-file."),
            ServerSetting(name: "push-grace-seconds", form: .value(placeholder: "push-grace-seconds"), help: "Push grace period in seconds (P4).",
                defaultText: ServerSetting.shown(defaults.pushGraceSeconds)) {
                text, options in
                guard let seconds = Double(text), seconds >= 0 else { return "seconds" }
                options.pushGraceSeconds = seconds
                return nil
            },
            .integer("edit-window-seconds", \.editWindowSeconds, "Seconds after sending in which its sender can edit a text message (M1)."),
            .integer("unsend-window-seconds", \.unsendWindowSeconds, "Seconds after sending in which its sender can unsend a message (M2)."),
            .integer(
                "user-daily-quota-bytes", \.userDailyQuotaBytes,
                "Bytes of message text and image URLs each user may store per UTC day (sent or edited in); past it sends and edits are quota_exceeded (HTTP 429) and nothing is stored; 0 = unlimited."),
            ServerSetting(
                name: "push-preview", form: .value(placeholder: "push-preview"),
                help: "What a push to a device without a connection reveals to its provider: full (title: sender or group, text, sender id, conversation and message ids, link), sender (the same, text replaced by \"New message\"), or none (\"Herald\" / \"New message\", the badge and an opaque ref the app resolves with push.resolve once awake: no user id, name, title, text, conversation or message id, or link).",
                defaultText: defaults.push.preview.rawValue
            ) { text, options in
                guard let level = PushPreviewLevel(rawValue: text) else { return "full, sender or none" }
                options.push.preview = level
                return nil
            },
            .integer("push-ttl-seconds", \.push.timeToLiveSeconds, "Seconds an undelivered push keeps being retried (its TTL at the provider)."),
            .positiveInteger("push-concurrency", \.push.concurrency, "Requests in flight per push provider."),
            .positiveInteger(
                "push-host-concurrency", \.push.hostConcurrency,
                "Requests in flight to one Web Push site (its last two name labels; the browsers' own push services get all of --push-concurrency); the rest stays free for other hosts."),
            .positiveInteger(
                "push-stall-timeout-ms", \.push.stallTimeoutMs,
                "Give up a push request that connects or receives nothing for this many ms (whole seconds); the host is then backed off."),
            ServerSetting(
                name: "push-test-resolve", form: .value(placeholder: "push-test-resolve"),
                help: "Tests only: host:port:address[,...] used instead of DNS for push requests (like curl --resolve); the address is still checked (Web Push: public only).",
                defaultText: nil
            ) { text, options in
                let entries = text.split(separator: ",").map(String.init)
                let wellFormed = entries.allSatisfy { entry in
                    entry.split(separator: ":", maxSplits: 2).count == 3 && !entry.contains(where: { $0.isWhitespace || $0.isNewline })
                }
                guard !entries.isEmpty, wellFormed else { return "host:port:address entries separated by commas" }
                options.push.testResolve = entries
                return nil
            },
            .positiveInteger("push-max-backoff-ms", \.push.maxBackoffMs, "Longest wait in ms between two attempts of one push."),
            .positiveInteger(
                "push-max-targets-per-user", \.push.maxTargetsPerUser,
                "Push targets one user may register (one per device; a device registering again replaces its own); past it, registering a new device is refused (conflict, 409)."),
            .positiveInteger(
                "push-max-retry-after-seconds", \.push.maxRetryAfterSeconds,
                "Longest wait in seconds a provider's Retry-After can impose on one push (at most 3600); longer asks, far-future dates included, are cut to it."),
            .toggle("push-allow-http-loopback", \.push.allowsLoopbackHTTP, "Accept Web Push endpoints on loopback (127.x, localhost, [::1]; https or plain http), and let them connect to loopback addresses; others need a public DNS name that resolves to a public address (tests only)."),
            .optionalText("push-ca-file", \.push.caFile, "PEM certificates to trust for push providers instead of the system's."),
            .optionalText("apns-key-file", \.push.apnsKeyFile, "APNs auth key (.p8) for token-based authentication; enables apns targets."),
            .optionalText("apns-key-id", \.push.apnsKeyID, "The APNs key's 10-character key id."),
            .optionalText("apns-team-id", \.push.apnsTeamID, "The Apple developer team id (10 characters)."),
            .optionalText("apns-url", \.push.apnsURL, "APNs base URL instead of Apple's production/sandbox hosts."),
            .optionalText(
                "fcm-service-account-file", \.push.fcmServiceAccountFile, "Google service-account key file (JSON) for FCM HTTP v1; enables fcm targets."),
            .optionalText("fcm-url", \.push.fcmURL, "FCM base URL instead of https://fcm.googleapis.com."),
            .optionalText("vapid-key-file", \.push.vapidKeyFile, "VAPID P-256 private key (PEM) for Web Push; enables webpush targets."),
            .optionalText("vapid-subject", \.push.vapidSubject, "VAPID contact: a mailto: or https: URI."),
            .optionalText("webhook-url", \.push.webhookURL, "The app's push backend: signed JSON POSTs go here; enables webhook targets."),
            .optionalText("webhook-secret-file", \.push.webhookSecretFile, "File holding the webhook signing secret (at least 16 bytes)."),
            .integer(
                "handshake-timeout-ms", \.handshakeTimeoutMs, "Close connections whose HTTP request head is incomplete after this many ms."),
            .integer("ping-interval-ms", \.pingIntervalMs, "Ping sessions quiet for this many ms; 0 disables."),
            .integer("idle-timeout-ms", \.idleTimeoutMs, "Close sessions silent for this many ms with 1001; 0 disables."),
            .integer("tick-ms", \.tickMs, "Timer sweep granularity in ms."),
            .integer("max-frame-bytes", \.maxFrameSize, "Largest WebSocket frame payload in bytes."),
            .integer("max-message-bytes", \.maxMessageSize, "Largest WebSocket message in bytes."),
            .integer("max-connections", \.maxConnections, "Most simultaneous connections; more get 503 before any upgrade."),
            .integer(
                "max-connections-per-ip", \.maxConnectionsPerIP, "Most simultaneous connections per client IP; more get 429; 0 = unlimited."),
            .rate(
                "handshake-rate-per-ip", \.handshakeRatePerIP,
                "New connections per second per client IP (burst: 5 s worth); more get 429; 0 = unlimited."),
            .integer(
                "max-connections-per-user", \.maxConnectionsPerUser,
                "Most simultaneous /sync connections per user (all devices); more get 429; 0 = unlimited."),
            .integer(
                "max-buffered-input-bytes-per-user", \.maxBufferedInputPerUser,
                "Bytes one user's unfinished WebSocket messages and unanswered /sync requests may hold (never less than twice --max-message-bytes); past it an unfinished message is refused with 1008 and pipelined requests wait; 0 = unlimited."),
            .integer(
                "max-buffered-input-bytes", \.maxBufferedInput,
                "Bytes all connections' unfinished WebSocket messages and unanswered /sync requests may hold together (never less than twice --max-message-bytes); past it an unfinished message is refused with 1008 and pipelined requests wait; 0 = unlimited."),
            .integer(
                "sync-user-batch-us", \.syncUserBatchMicroseconds,
                "Microseconds of the sync thread one user's requests may take per batch before the rest wait for the next batch (fair reads); 0 = no limit."),
            .rate(
                "sync-send-rate", \.syncSendRate,
                "/sync sends per second per user (burst: twice that); more are answered rate_limited; 0 = unlimited."),
            .rate("sync-create-rate", \.syncCreateRate, "/sync dm and group requests per second per user (burst: 15 s worth); 0 = unlimited."),
            .rate(
                "sync-social-rate", \.syncSocialRate, "/sync follow and react requests per second per user (burst: 120 s worth); 0 = unlimited."),
            .rate(
                "sync-read-rate", \.syncReadRate,
                "/sync ack, bell.read and bell.readAll requests per second per user (burst: 10 s worth); 0 = unlimited."),
            .rate("sync-scene-rate", \.syncSceneRate, "/sync scene reports per second per user (burst: 10 s worth); 0 = unlimited."),
            .integer("max-text-bytes", \.maxTextBytes, "Longest /sync message text in UTF-8 bytes; longer is too_large."),
            .positiveInteger(
                "max-unanswered-requests", \.maxUnansweredRequests,
                "/sync requests one connection may have pipelined without answers; past it the server stops reading it until answers catch up."),
            .optionalInteger(
                "max-queued-bytes", \.maxQueuedBytes,
                "Bytes queued per connection before a receiver that stopped reading is closed (it resumes on reconnect).", default: "4194304"),
            .optionalInteger(
                "socket-send-buffer-bytes", \.socketSendBuffer,
                "SO_SNDBUF of accepted sockets in bytes (caps kernel memory per stalled reader); default: kernel autotuning."),
            .toggle("metrics", \.metrics, "Serve GET /metrics (Prometheus text format)."),
            .optionalText(
                "metrics-token-file", \.metricsTokenFile,
                "File holding the token GET /metrics then requires as Authorization: Bearer <token> (mode 0600, one trailing newline ignored); default: no authentication."),
            .integer(
                "warnings-per-second", \.warningsPerSecond,
                "Warnings about limits firing (failed logins, refused connections, slow consumers, descriptor exhaustion, store write failures) logged per second per kind; the rest are counted and summarised."),
            .integer(
                "warning-summary-interval-ms", \.warningSummaryIntervalMs, "Report suppressed warnings of a kind this many ms after the first of them."),
            ServerSetting(
                name: "log-level", form: .value(placeholder: "log-level"), help: "trace, debug, info, notice, warning, error or critical.",
                defaultText: defaults.logLevel.rawValue
            ) { text, options in
                guard let level = Logger.Level(rawValue: text.lowercased()) else { return "trace, debug, info, notice, warning, error or critical" }
                options.logLevel = level
                return nil
            },
            .optionalText("tls-cert", \.tlsCertificateFile, "PEM certificate chain: serve wss:// (TLS 1.2+); re-read on SIGHUP."),
            .optionalText("tls-key", \.tlsKeyFile, "PEM private key for --tls-cert."),
            .optionalInteger("tls-port", \.tlsPort, "Serve TLS on this port and plain ws:// on --port; without it --port is TLS."),
        ]
    }

    /// The setting named `name` (its flag without the dashes), if there is one.
    public static func setting(_ name: String) -> ServerSetting? {
        settings.first { $0.name == name }
    }

    /// Every setting's flag name (without dashes) with its environment variable.
    public static var environmentNames: [String: String] {
        Dictionary(uniqueKeysWithValues: settings.map { ($0.name, $0.environmentName) })
    }

    /// The defaults, overridden by whichever `HERALD_*` variables are set (and not empty) in `environment`.
    ///
    /// - Parameter environment: usually `ProcessInfo.processInfo.environment`.
    /// - Throws: ``OptionsError`` naming the variable whose value does not parse.
    public init(environment: [String: String]) throws(OptionsError) {
        self.init()
        let environment = Self.renamingFormerVariables(environment)
        for setting in Self.settings {
            guard let text = environment[setting.environmentName], !text.isEmpty else { continue }
            try setting.apply(text, from: setting.environmentName, to: &self)
        }
    }

    /// Settles the signing secret: the `--secret`/`--secret-file` flags, when either is given, replace both
    /// variables (HERALD_SECRET, HERALD_SECRET_FILE), as a flag wins over its variable; then a secret file is read
    /// into ``secret``.
    ///
    /// - Throws: ``OptionsError`` when a secret and a secret file are both given (flags, or variables);
    ///   ``SecretFileError`` when the file cannot be used. Nothing is read from a file when both are given.
    public mutating func settleSecret(flag: String?, fileFlag: String?) throws {
        let fromFlags = flag != nil || fileFlag != nil
        if fromFlags {
            secret = flag
            secretFile = fileFlag
        }
        if let secretFile {
            if let secret, !secret.isEmpty {
                throw OptionsError(
                    name: fromFlags ? "--secret/--secret-file" : "HERALD_SECRET/HERALD_SECRET_FILE", value: "both given",
                    expected: "one of them (prefer the file: a --secret shows in ps)")
            }
            secret = try SecretFile.read(secretFile)
        }
    }

    /// Reads the /metrics token: the `--metrics-token-file` flag, when given, replaces HERALD_METRICS_TOKEN_FILE; the
    /// file is then read like the secret file (owner-only, one trailing line break dropped, not empty) into
    /// ``metricsToken``.
    ///
    /// - Throws: ``SecretFileError`` when the file cannot be used.
    public mutating func settleMetricsToken(fileFlag: String?) throws(SecretFileError) {
        if let fileFlag { metricsTokenFile = fileFlag }
        guard let metricsTokenFile else { return }
        metricsToken = try SecretFile.read(metricsTokenFile)
    }

    /// The longest push grace accepted: a day, far beyond any useful value and far from Int64 milliseconds.
    static let maxPushGraceSeconds: Double = 86_400
    /// The largest message size accepted: 1 TiB, far beyond memory and far from overflowing size arithmetic.
    static let maxMessageSizeLimit = 1 << 40

    /// Checks values that would make the server misbehave rather than fail to start.
    public func validate() throws(OptionsError) {
        // Negative ports come in through `--port=-1` (the variables refuse them); UInt16(port) would trap on them.
        if !(0...65535).contains(port) { throw OptionsError(name: "port", value: String(port), expected: "0...65535") }
        if threads < 1 { throw OptionsError(name: "threads", value: String(threads), expected: "at least 1") }
        if tickMs < 1 { throw OptionsError(name: "tick-ms", value: String(tickMs), expected: "at least 1 ms") }
        if (tlsCertificateFile == nil) != (tlsKeyFile == nil) {
            throw OptionsError(name: "tls-cert/tls-key", value: tlsCertificateFile ?? tlsKeyFile ?? "", expected: "both files, or neither")
        }
        if let tlsPort {
            if tlsCertificateFile == nil { throw OptionsError(name: "tls-port", value: String(tlsPort), expected: "--tls-cert and --tls-key as well") }
            if !(0...65535).contains(tlsPort) { throw OptionsError(name: "tls-port", value: String(tlsPort), expected: "0...65535") }
        }
        if warningsPerSecond < 1 {
            throw OptionsError(name: "warnings-per-second", value: String(warningsPerSecond), expected: "at least 1")
        }
        if !(1...3_600_000).contains(warningSummaryIntervalMs) {
            throw OptionsError(name: "warning-summary-interval-ms", value: String(warningSummaryIntervalMs), expected: "1...3600000 ms")
        }
        if metricsToken?.isEmpty == true { throw OptionsError(name: "metrics-token-file", value: metricsTokenFile ?? "", expected: "a non-empty token") }
        if maxTextBytes < 1 { throw OptionsError(name: "max-text-bytes", value: String(maxTextBytes), expected: "at least 1") }
        let rates = [
            ("handshake-rate-per-ip", handshakeRatePerIP), ("sync-send-rate", syncSendRate), ("sync-create-rate", syncCreateRate),
            ("sync-social-rate", syncSocialRate), ("sync-read-rate", syncReadRate), ("sync-scene-rate", syncSceneRate),
        ]
        for (name, rate) in rates where !(rate >= 0) || !rate.isFinite {
            throw OptionsError(name: name, value: String(rate), expected: "a rate >= 0 per second")
        }
        // The grace becomes whole milliseconds in an Int64: `inf` or 1e300 (both parse as seconds) would trap there.
        if !(0...Self.maxPushGraceSeconds).contains(pushGraceSeconds) {
            throw OptionsError(name: "push-grace-seconds", value: String(pushGraceSeconds), expected: "0...\(Int(Self.maxPushGraceSeconds)) seconds")
        }
        try push.validate()
        // The send-queue bound is computed as 2 * maxMessageSize + 64, which must not overflow.
        if maxMessageSize > Self.maxMessageSizeLimit {
            throw OptionsError(name: "max-message-bytes", value: String(maxMessageSize), expected: "at most \(Self.maxMessageSizeLimit) bytes")
        }
        // Deadlines are monotonic ticks plus these values: a year is far past any real timeout, and keeps the
        // addition from wrapping into a deadline in the past (which would time every connection out at once).
        // Pings and the idle timeout may be off (0).
        let year = 365 * 24 * 3_600_000
        let bounded = [("handshake-timeout-ms", handshakeTimeoutMs, 1), ("ping-interval-ms", pingIntervalMs, 0), ("idle-timeout-ms", idleTimeoutMs, 0)]
        for (name, value, lowest) in bounded where !(lowest...year).contains(value) {
            throw OptionsError(name: name, value: String(value), expected: "\(lowest)...\(year) ms")
        }
        // Seconds, made milliseconds in an Int64: a year keeps the product far from overflow.
        for (name, value) in [("edit-window-seconds", editWindowSeconds), ("unsend-window-seconds", unsendWindowSeconds)] where !(0...year / 1000).contains(value) {
            throw OptionsError(name: name, value: String(value), expected: "0...\(year / 1000) seconds")
        }
    }
}

/// An option whose value cannot be used.
public struct OptionsError: Error, Sendable, CustomStringConvertible {
    /// The flag or environment variable.
    public var name: String
    /// The value given.
    public var value: String
    /// What would have been accepted.
    public var expected: String

    public var description: String { "\(name)=\(value): expected \(expected)" }
}
