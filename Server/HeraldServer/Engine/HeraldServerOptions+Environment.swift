import Logging

extension HeraldServerOptions {
    /// Every option with its environment variable, for `--help` and for ``init(environment:)``.
    ///
    /// The variable is `HERALD_` followed by the flag name in upper case with `-` as `_`
    /// (`--handshake-timeout` → `HERALD_HANDSHAKE_TIMEOUT`).
    public static let environmentNames: [String: String] = [
        "host": "HERALD_HOST", "port": "HERALD_PORT", "threads": "HERALD_THREADS", "echo": "HERALD_ECHO",
        "broadcast": "HERALD_BROADCAST", "db": "HERALD_DB", "secret": "HERALD_SECRET", "secret-file": "HERALD_SECRET_FILE",
        "push-grace": "HERALD_PUSH_GRACE", "handshake-timeout": "HERALD_HANDSHAKE_TIMEOUT", "ping-interval": "HERALD_PING_INTERVAL",
        "idle-timeout": "HERALD_IDLE_TIMEOUT", "tick": "HERALD_TICK", "max-frame-size": "HERALD_MAX_FRAME_SIZE",
        "max-message-size": "HERALD_MAX_MESSAGE_SIZE", "max-connections": "HERALD_MAX_CONNECTIONS", "log-level": "HERALD_LOG_LEVEL",
        "compression": "HERALD_COMPRESSION", "tls-cert": "HERALD_TLS_CERT", "tls-key": "HERALD_TLS_KEY", "tls-port": "HERALD_TLS_PORT",
        "max-connections-per-ip": "HERALD_MAX_CONNECTIONS_PER_IP", "handshake-rate-per-ip": "HERALD_HANDSHAKE_RATE_PER_IP",
        "sync-send-rate": "HERALD_SYNC_SEND_RATE", "sync-create-rate": "HERALD_SYNC_CREATE_RATE",
        "sync-social-rate": "HERALD_SYNC_SOCIAL_RATE", "sync-read-rate": "HERALD_SYNC_READ_RATE", "sync-scene-rate": "HERALD_SYNC_SCENE_RATE",
        "max-text-bytes": "HERALD_MAX_TEXT_BYTES", "metrics": "HERALD_METRICS",
        "max-queued-bytes": "HERALD_MAX_QUEUED_BYTES", "socket-send-buffer": "HERALD_SOCKET_SEND_BUFFER",
        "metrics-token-file": "HERALD_METRICS_TOKEN_FILE", "warnings-per-second": "HERALD_WARNINGS_PER_SECOND",
        "warning-summary-interval": "HERALD_WARNING_SUMMARY_INTERVAL",
    ]

    /// The defaults, overridden by whichever `HERALD_*` variables are set in `environment`.
    ///
    /// - Parameter environment: usually `ProcessInfo.processInfo.environment`.
    /// - Throws: ``OptionsError`` naming the variable whose value does not parse.
    public init(environment: [String: String]) throws(OptionsError) {
        self.init()
        func value(_ flag: String) -> (name: String, text: String)? {
            guard let name = Self.environmentNames[flag], let text = environment[name], !text.isEmpty else { return nil }
            return (name, text)
        }
        func integer(_ flag: String) throws(OptionsError) -> Int? {
            guard let (name, text) = value(flag) else { return nil }
            guard let number = Int(text), number >= 0 else { throw OptionsError(name: name, value: text, expected: "a non-negative integer") }
            return number
        }
        func boolean(_ flag: String) throws(OptionsError) -> Bool? {
            guard let (name, text) = value(flag) else { return nil }
            switch text.lowercased() {
            case "1", "true", "yes", "on": return true
            case "0", "false", "no", "off": return false
            default: throw OptionsError(name: name, value: text, expected: "true or false")
            }
        }
        if let (_, text) = value("host") { host = text }
        if let number = try integer("port") { port = number }
        if let number = try integer("threads") { threads = number }
        if let flag = try boolean("echo") { echo = flag }
        if let flag = try boolean("broadcast") { broadcast = flag }
        if let flag = try boolean("compression") { compression = flag }
        if let (_, text) = value("db") { dbPath = text }
        if let (_, text) = value("secret") { secret = text }
        if let (_, text) = value("secret-file") { secretFile = text }
        if let (name, text) = value("push-grace") {
            guard let seconds = Double(text), seconds >= 0 else { throw OptionsError(name: name, value: text, expected: "seconds") }
            pushGraceSeconds = seconds
        }
        if let number = try integer("handshake-timeout") { handshakeTimeoutMs = number }
        if let number = try integer("ping-interval") { pingIntervalMs = number }
        if let number = try integer("idle-timeout") { idleTimeoutMs = number }
        if let number = try integer("tick") { tickMs = number }
        if let number = try integer("max-frame-size") { maxFrameSize = number }
        if let number = try integer("max-message-size") { maxMessageSize = number }
        if let number = try integer("max-connections") { maxConnections = number }
        if let number = try integer("max-connections-per-ip") { maxConnectionsPerIP = number }
        if let number = try integer("max-text-bytes") { maxTextBytes = number }
        if let flag = try boolean("metrics") { metrics = flag }
        if let (_, text) = value("metrics-token-file") { metricsTokenFile = text }
        if let number = try integer("warnings-per-second") { warningsPerSecond = number }
        if let number = try integer("warning-summary-interval") { warningSummaryIntervalMs = number }
        if let number = try integer("max-queued-bytes") { maxQueuedBytes = number }
        if let number = try integer("socket-send-buffer") { socketSendBuffer = number }
        let rates: [(String, WritableKeyPath<HeraldServerOptions, Double>)] = [
            ("handshake-rate-per-ip", \.handshakeRatePerIP), ("sync-send-rate", \.syncSendRate), ("sync-create-rate", \.syncCreateRate),
            ("sync-social-rate", \.syncSocialRate), ("sync-read-rate", \.syncReadRate), ("sync-scene-rate", \.syncSceneRate),
        ]
        for (flag, field) in rates {
            guard let (name, text) = value(flag) else { continue }
            guard let rate = Double(text), rate >= 0, rate.isFinite else { throw OptionsError(name: name, value: text, expected: "a rate >= 0 per second") }
            self[keyPath: field] = rate
        }
        if let (_, text) = value("tls-cert") { tlsCertificateFile = text }
        if let (_, text) = value("tls-key") { tlsKeyFile = text }
        if let number = try integer("tls-port") { tlsPort = number }
        if let (name, text) = value("log-level") {
            guard let level = Logger.Level(rawValue: text.lowercased()) else {
                throw OptionsError(name: name, value: text, expected: "trace, debug, info, notice, warning, error or critical")
            }
            logLevel = level
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
        if tickMs < 1 { throw OptionsError(name: "tick", value: String(tickMs), expected: "at least 1 ms") }
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
            throw OptionsError(name: "warning-summary-interval", value: String(warningSummaryIntervalMs), expected: "1...3600000 ms")
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
            throw OptionsError(name: "push-grace", value: String(pushGraceSeconds), expected: "0...\(Int(Self.maxPushGraceSeconds)) seconds")
        }
        // The send-queue bound is computed as 2 * maxMessageSize + 64, which must not overflow.
        if maxMessageSize > Self.maxMessageSizeLimit {
            throw OptionsError(name: "max-message-size", value: String(maxMessageSize), expected: "at most \(Self.maxMessageSizeLimit) bytes")
        }
        // Deadlines are monotonic ticks plus these values: a year is far past any real timeout, and keeps the
        // addition from wrapping into a deadline in the past (which would time every connection out at once).
        // Pings and the idle timeout may be off (0).
        let year = 365 * 24 * 3_600_000
        let bounded = [("handshake-timeout", handshakeTimeoutMs, 1), ("ping-interval", pingIntervalMs, 0), ("idle-timeout", idleTimeoutMs, 0)]
        for (name, value, lowest) in bounded where !(lowest...year).contains(value) {
            throw OptionsError(name: name, value: String(value), expected: "\(lowest)...\(year) ms")
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
