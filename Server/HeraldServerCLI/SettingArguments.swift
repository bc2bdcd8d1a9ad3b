import ArgumentParser
import HeraldServer

/// The server's settings on the command line, read against ``HeraldServerOptions/settings`` (the one table of flags,
/// variables, help and checks) instead of one declaration per flag here.
enum SettingArguments {
    /// `--name value`, `--name=value`, `--toggle` and `--no-toggle` words, in the order given, as settings with their
    /// text (a toggle's is `true` or `false`).
    ///
    /// - Throws: `ValidationError` for an unknown option, a value missing, or a value given to a toggle.
    static func parse(_ words: [String], settings: [ServerSetting] = HeraldServerOptions.settings) throws -> [(ServerSetting, String)] {
        var given: [(ServerSetting, String)] = []
        var index = 0
        while index < words.count {
            let word = words[index]
            index += 1
            guard word.hasPrefix("--") else { throw ValidationError("unexpected argument '\(word)'") }
            var name = String(word.dropFirst(2))
            var inline: String?
            if let equals = name.firstIndex(of: "=") {
                inline = String(name[name.index(after: equals)...])
                name = String(name[..<equals])
            }
            if let setting = settings.first(where: { $0.name == name }) {
                switch setting.form {
                case .toggle:
                    guard inline == nil else { throw ValidationError("\(setting.flag) takes no value (use --no-\(setting.name) to turn it off)") }
                    given.append((setting, "true"))
                case .value:
                    if let inline {
                        given.append((setting, inline))
                    } else {
                        guard index < words.count else { throw ValidationError("missing value for \(setting.flag)") }
                        given.append((setting, words[index]))
                        index += 1
                    }
                }
            } else if name.hasPrefix("no-"), inline == nil, let setting = settings.first(where: { $0.name == name.dropFirst(3) && $0.form == .toggle }) {
                given.append((setting, "false"))
            } else {
                throw ValidationError("unknown option '--\(name)'")
            }
        }
        return given
    }

    /// The defaults, then the `HERALD_*` variables, then `given` (a flag wins over its variable). With `readingSecret`,
    /// the signing secret is then settled: `--secret`/`--secret-file`, when either is given, replace both variables, and
    /// a secret file is read.
    static func options(environment: [String: String], given: [(ServerSetting, String)], readingSecret: Bool = true) throws -> HeraldServerOptions {
        var options: HeraldServerOptions
        var secret: String?
        var secretFile: String?
        do {
            options = try HeraldServerOptions(environment: environment)
            for (setting, text) in given {
                switch setting.name {
                case "secret": secret = text
                case "secret-file": secretFile = text
                default: try setting.apply(text, from: setting.flag, to: &options)
                }
            }
        } catch {
            throw ValidationError("\(error)")
        }
        guard readingSecret else { return options }
        do {
            try options.settleSecret(flag: secret, fileFlag: secretFile)
        } catch let error as OptionsError {
            throw ValidationError("\(error)")
        }
        return options
    }

    /// The settings of `values` (name, flag value) whose flag was given, in that order: how a command that declares a few
    /// settings as its own options hands them to ``options(environment:given:readingSecret:)``.
    static func given(_ values: [(name: String, text: String?)]) -> [(ServerSetting, String)] {
        values.compactMap { name, text in
            guard let text, let setting = HeraldServerOptions.setting(name) else { return nil }
            return (setting, text)
        }
    }

    /// Whether `--secret` itself (visible in ps) was given.
    static func givesSecret(_ given: [(ServerSetting, String)]) -> Bool {
        given.contains { $0.0.name == "secret" }
    }

    /// How settings are given, then every setting: the discussion of both `serve --help` and `herald-server --help`
    /// (serve is the default command, so its settings are the program's).
    static var settingsDiscussion: String {
        "Every option may also be given as an environment variable HERALD_<NAME> (e.g. HERALD_PORT, "
            + "HERALD_HANDSHAKE_TIMEOUT); a flag wins over the variable.\n\nSETTINGS:\n" + helpText()
    }

    /// The settings as `serve --help` lists them: flag and placeholder, then help, variable and default.
    static func helpText(_ settings: [ServerSetting] = HeraldServerOptions.settings) -> String {
        let rows = settings.map { setting in
            switch setting.form {
            case .toggle: ("\(setting.flag)/--no-\(setting.name)", setting.helpLine)
            case .value(let placeholder): ("\(setting.flag) <\(placeholder)>", setting.helpLine)
            }
        }
        return rows.map { "  \($0.0)\n" + wrapped($0.1, indent: "        ") }.joined(separator: "\n")
    }

    /// `text` in lines of at most 79 columns, each starting with `indent`: short enough that the help printer does not
    /// wrap them again (and lose the indentation).
    private static func wrapped(_ text: String, indent: String, width: Int = 79) -> String {
        var lines: [String] = []
        var line = indent
        for word in text.split(separator: " ") {
            if line.count > indent.count && line.count + 1 + word.count > width {
                lines.append(line)
                line = indent
            }
            line += (line.count > indent.count ? " " : "") + word
        }
        lines.append(line)
        return lines.joined(separator: "\n")
    }

    /// The help of one setting, for the commands that declare a few of them as their own options.
    static func help(_ name: String) -> ArgumentHelp {
        ArgumentHelp(HeraldServerOptions.setting(name)?.helpLine ?? "")
    }
}
