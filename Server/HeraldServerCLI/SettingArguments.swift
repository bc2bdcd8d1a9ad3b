import ArgumentParser
import HeraldServer

/// The server's settings on the command line, read against ``HeraldServerOptions/settings`` (the one table of flags,
/// variables, help and checks) instead of one declaration per flag here.
enum SettingArguments {
    /// The option a property of ``ServeArguments`` declares, as ArgumentParser names it: `_pushGraceSeconds` →
    /// `push-grace-seconds`.
    static func optionName(property: String) -> String {
        var name = ""
        for character in property.drop(while: { $0 == "_" }) {
            if character.isUppercase, !name.isEmpty { name.append("-") }
            name += character.lowercased()
        }
        return name
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

    /// How settings are given: the discussion of `serve --help`, whose options ArgumentParser lists.
    static let environmentDiscussion = "Every option may also be given as an environment variable HERALD_<NAME> (e.g. HERALD_PORT, "
        + "HERALD_HANDSHAKE_TIMEOUT_MS); a flag wins over the variable."

    /// How settings are given, then every setting: the discussion of `herald-server --help`, which lists serve's
    /// settings (serve is the default command, so its settings are the program's).
    static var settingsDiscussion: String { environmentDiscussion + "\n\nSETTINGS:\n" + helpText() }

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
        guard let setting = HeraldServerOptions.setting(name) else { return ArgumentHelp("") }
        switch setting.form {
        case .toggle: return ArgumentHelp(setting.helpLine)
        case .value(let placeholder): return ArgumentHelp(setting.helpLine, valueName: placeholder)
        }
    }
}
