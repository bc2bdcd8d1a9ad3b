import Foundation

/// One setting of `herald-server`: its flag (`--name`), its environment variable (`HERALD_NAME`), its help and
/// default as `--help` shows them, and how a value given as text is read into ``HeraldServerOptions`` and checked.
///
/// ``HeraldServerOptions/settings`` is the one place every setting is declared: the flags of `serve`, `token` and
/// `apikey`, the `HERALD_*` variables and the help text all come from it.
public struct ServerSetting {
    /// How the setting is given on the command line.
    public enum Form: Equatable {
        /// `--name <value>` or `--name=<value>`.
        case value(placeholder: String)
        /// `--name` or `--no-name`; the variable takes true/false, 1/0, yes/no or on/off.
        case toggle
    }

    /// The flag without its dashes, e.g. `handshake-timeout`.
    public let name: String
    public let form: Form
    /// What the setting does, without its variable and default (``helpLine`` adds them).
    public let help: String
    /// The default as help shows it; nil when help shows none.
    public let defaultText: String?
    /// Reads a value into the options; returns what would have been accepted when the value is refused.
    let read: (String, inout HeraldServerOptions) -> String?

    /// `--` and the name.
    public var flag: String { "--" + name }

    /// `HERALD_` and the name in upper case with `-` as `_` (`--handshake-timeout-ms` → `HERALD_HANDSHAKE_TIMEOUT_MS`).
    public var environmentName: String { "HERALD_" + name.uppercased().replacingOccurrences(of: "-", with: "_") }

    /// The help as `--help` prints it: what it does, its variable and its default.
    public var helpLine: String { "\(help) [env: \(environmentName)]" + (defaultText.map { " (default: \($0))" } ?? "") }

    /// Reads `text`, given as `source` (the flag or the variable, which an error names), into `options`.
    ///
    /// - Throws: ``OptionsError`` saying what would have been accepted.
    public func apply(_ text: String, from source: String, to options: inout HeraldServerOptions) throws(OptionsError) {
        if let expected = read(text, &options) { throw OptionsError(name: source, value: text, expected: expected) }
    }
}

// MARK: - Kinds of values

extension ServerSetting {
    typealias Options = HeraldServerOptions

    /// How help shows a default number: whole numbers without a fraction (`100`, not `100.0`).
    static func shown(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
    }

    // The kinds below show the field's value in `HeraldServerOptions()` as the default unless `default` says otherwise
    // (the defaults are written once, in HeraldServerOptions).

    static func text(_ name: String, _ field: WritableKeyPath<Options, String>, _ help: String) -> ServerSetting {
        ServerSetting(name: name, form: .value(placeholder: name), help: help, defaultText: Options()[keyPath: field]) { text, options in
            options[keyPath: field] = text
            return nil
        }
    }

    static func optionalText(_ name: String, _ field: WritableKeyPath<Options, String?>, _ help: String) -> ServerSetting {
        ServerSetting(name: name, form: .value(placeholder: name), help: help, defaultText: Options()[keyPath: field]) { text, options in
            options[keyPath: field] = text
            return nil
        }
    }

    static func integer(_ name: String, _ field: WritableKeyPath<Options, Int>, _ help: String, default: String? = nil) -> ServerSetting {
        wholeNumber(name, help, default: `default` ?? String(Options()[keyPath: field]), minimum: 0) { $1[keyPath: field] = $0 }
    }

    static func positiveInteger(_ name: String, _ field: WritableKeyPath<Options, Int>, _ help: String) -> ServerSetting {
        wholeNumber(name, help, default: String(Options()[keyPath: field]), minimum: 1) { $1[keyPath: field] = $0 }
    }

    static func optionalInteger(_ name: String, _ field: WritableKeyPath<Options, Int?>, _ help: String, default: String? = nil) -> ServerSetting {
        wholeNumber(name, help, default: `default` ?? Options()[keyPath: field].map { String($0) }, minimum: 0) { $1[keyPath: field] = $0 }
    }

    /// A whole number of at least `minimum` (0 or 1), handed to `store`.
    private static func wholeNumber(
        _ name: String, _ help: String, default: String?, minimum: Int, store: @escaping (Int, inout Options) -> Void
    ) -> ServerSetting {
        ServerSetting(name: name, form: .value(placeholder: name), help: help, defaultText: `default`) { text, options in
            guard let number = Int(text), number >= minimum else { return minimum > 0 ? "a positive integer" : "a non-negative integer" }
            store(number, &options)
            return nil
        }
    }

    /// A rate per second: `inf` and NaN are refused here, as later arithmetic would trap on them.
    static func rate(_ name: String, _ field: WritableKeyPath<Options, Double>, _ help: String) -> ServerSetting {
        ServerSetting(name: name, form: .value(placeholder: name), help: help, defaultText: shown(Options()[keyPath: field])) { text, options in
            guard let rate = Double(text), rate >= 0, rate.isFinite else { return "a rate >= 0 per second" }
            options[keyPath: field] = rate
            return nil
        }
    }

    /// Help shows `on` for a setting that is on by default, nothing for one that is off.
    static func toggle(_ name: String, _ field: WritableKeyPath<Options, Bool>, _ help: String) -> ServerSetting {
        ServerSetting(name: name, form: .toggle, help: help, defaultText: Options()[keyPath: field] ? "on" : nil) { text, options in
            switch text.lowercased() {
            case "1", "true", "yes", "on": options[keyPath: field] = true
            case "0", "false", "no", "off": options[keyPath: field] = false
            default: return "true or false"
            }
            return nil
        }
    }
}
