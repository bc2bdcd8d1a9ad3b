/// Names settings had before every name said its unit; still accepted so that scripts written for them keep working,
/// with a warning that names the new one.
extension HeraldServerOptions {
    /// Former name (without dashes) → the setting's name.
    public static let formerNames: [String: String] = [
        "push-grace": "push-grace-seconds", "edit-window": "edit-window-seconds", "unsend-window": "unsend-window-seconds",
        "user-daily-quota": "user-daily-quota-bytes", "api-max-body": "api-max-body-bytes", "push-ttl": "push-ttl-seconds",
        "push-stall-timeout": "push-stall-timeout-ms", "push-max-backoff": "push-max-backoff-ms",
        "push-max-retry-after": "push-max-retry-after-seconds", "handshake-timeout": "handshake-timeout-ms",
        "ping-interval": "ping-interval-ms", "idle-timeout": "idle-timeout-ms", "tick": "tick-ms", "max-frame-size": "max-frame-bytes",
        "max-message-size": "max-message-bytes", "max-buffered-input-per-user": "max-buffered-input-bytes-per-user",
        "max-buffered-input": "max-buffered-input-bytes", "socket-send-buffer": "socket-send-buffer-bytes",
        "warning-summary-interval": "warning-summary-interval-ms",
    ]

    /// `arguments` with each former flag (`--push-grace`, `--push-grace=2`) spelt as its setting's name now, and a
    /// warning per former flag met. Only words before `--` are options.
    public static func renamingFormerFlags(_ arguments: [String]) -> (arguments: [String], warnings: [String]) {
        var warnings: [String] = []
        var optionsEnded = false
        let renamed = arguments.map { word -> String in
            if word == "--" { optionsEnded = true }
            guard !optionsEnded, word.hasPrefix("--") else { return word }
            let flag = word.prefix { $0 != "=" }
            guard let name = formerNames[String(flag.dropFirst(2))] else { return word }
            warnings.append("\(flag) is now --\(name)")
            return "--" + name + word.dropFirst(flag.count)
        }
        return (renamed, warnings)
    }

    /// `environment` with each former `HERALD_*` variable copied to its setting's variable, where that one is not set.
    static func renamingFormerVariables(_ environment: [String: String]) -> [String: String] {
        var renamed = environment
        for (former, name) in formerNames {
            guard let setting = setting(name), let text = environment["HERALD_" + former.uppercased().replacing("-", with: "_")],
                  renamed[setting.environmentName] == nil else { continue }
            renamed[setting.environmentName] = text
        }
        return renamed
    }
}
